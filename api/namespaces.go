package api

// NamespaceDoc is the namespace rule as operation descriptions state it,
// written once for every operation that takes a slug (rulebook create,
// rulebook activation, project publish).
const NamespaceDoc = "Namespaces are owned: a slug's namespace is the part before its first `/` (the whole slug when it has none), and the first tenant to publish content under a namespace (a ruleset, or a rulebook's first release; an empty draft claims nothing) owns it. " +
	"Another tenant's slug under it is refused with 403 `namespace_owned`, whether or not that slug exists, so the answer reveals no private slug; " +
	"409 `slug_conflict` is only ever answered for a slug under a namespace of the caller's own. " +
	"A tenant owns at most a number of namespaces set by its tier; a publish that would claim one more is 422 `tenant_namespace_limit`. " +
	"The service's prefix and the reserved namespaces (names of governments, agencies and programmes) are 403 `reserved_namespace` unless an operator assigned the namespace to the caller's tenant."
