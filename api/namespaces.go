package api

// NamespaceDoc is the namespace rule as operation descriptions state it,
// written once for every operation that takes a slug (rulebook create,
// project publish).
const NamespaceDoc = "Namespaces are owned: a slug's namespace is the part before its first `/` (the whole slug when it has none), and the first tenant to publish a ruleset or create a rulebook under a namespace owns it. " +
	"Another tenant's slug under it is refused with 403 `namespace_owned`, whether or not that slug exists, so the answer reveals no private slug; " +
	"409 `slug_conflict` is only ever answered for a slug under a namespace of the caller's own. The reserved namespace (403 `reserved_namespace`) is no tenant's."
