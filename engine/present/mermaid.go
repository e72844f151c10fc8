package present

import (
	"strconv"
	"strings"

	"github.com/eligo/eligo/engine"
)

// Mermaid writes the graph as Mermaid flowchart text (the `mermaid`
// member, docs/api.md#the-graph): left to right, fields into values and
// criteria into groups into the outcome. Every node is written
// `id["label"]`, a value node as a hexagon `id{{"label"}}` so the figures
// the law computes stand apart from its conditions, with a sanitised id
// (only A-Z a-z 0-9 _) and a label whose risky characters are Mermaid
// entity codes, so no title, question or quote an author writes can break
// the diagram or inject markup. With an overlay, nodes are classed by status
// (satisfied, not_satisfied, pending) so a renderer colours the decision.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.Grow(64 * (len(g.Nodes) + len(g.Edges)))
	b.WriteString("flowchart LR\n")
	ids := make(map[string]string, len(g.Nodes))
	taken := make(map[string]bool, len(g.Nodes))
	byStatus := map[engine.Status][]string{}
	for _, n := range g.Nodes {
		id := mermaidID(n.ID, taken)
		ids[n.ID] = id
		open, end := `["`, "\"]\n"
		if n.Type == NodeTypeValue {
			open, end = `{{"`, "\"}}\n"
		}
		b.WriteString("  ")
		b.WriteString(id)
		b.WriteString(open)
		b.WriteString(mermaidLabel(mermaidText(n)))
		b.WriteString(end)
		if n.Overlay != nil {
			byStatus[n.Overlay.Status] = append(byStatus[n.Overlay.Status], id)
		}
	}
	for _, e := range g.Edges {
		src, ok1 := ids[e.Source]
		dst, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			continue // an edge to a node not in the graph is not drawn
		}
		b.WriteString("  ")
		b.WriteString(src)
		b.WriteString(" --> ")
		b.WriteString(dst)
		b.WriteByte('\n')
	}
	for _, st := range []engine.Status{engine.Satisfied, engine.NotSatisfied, engine.Pending} {
		members := byStatus[st]
		if len(members) == 0 {
			continue
		}
		b.WriteString("  classDef ")
		b.WriteString(st.String())
		b.WriteByte(' ')
		b.WriteString(statusStyle[st])
		b.WriteString("\n  class ")
		b.WriteString(strings.Join(members, ","))
		b.WriteByte(' ')
		b.WriteString(st.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// statusStyle colours overlay statuses: green, red, grey.
var statusStyle = map[engine.Status]string{
	engine.Satisfied:    "fill:#d9f2d9,stroke:#2e7d32",
	engine.NotSatisfied: "fill:#f9d6d5,stroke:#c62828",
	engine.Pending:      "fill:#eeeeee,stroke:#757575",
}

// mermaidText is what a node shows: its label, for a group whether all or
// any of its criteria are needed, and for a table that it is one.
func mermaidText(n GraphNode) string {
	switch {
	case n.Type == NodeTypeValue && n.Table:
		return n.Label + " (table)"
	case n.Type == NodeTypeGroup && n.Kind == engine.GroupAll:
		return n.Label + " (all of)"
	case n.Type == NodeTypeGroup && n.Kind == engine.GroupAny:
		return n.Label + " (any of)"
	}
	return n.Label
}

// mermaidID turns a graph node id into a Mermaid node id: every character
// outside A-Z a-z 0-9 _ becomes "_". Two ids that sanitise alike get
// "_2", "_3", ... in node order, so the mapping stays one to one; an id
// that would start with "end" (Mermaid's block keyword) or is empty gets
// an "n_" in front.
func mermaidID(id string, taken map[string]bool) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	s := string(b)
	if s == "" || strings.HasPrefix(strings.ToLower(s), "end") {
		s = "n_" + s
	}
	out := s
	for k := 2; taken[out]; k++ {
		out = s + "_" + strconv.Itoa(k)
	}
	taken[out] = true
	return out
}

// mermaidEntities are the characters a quoted Mermaid label must not hold
// raw: the quote ends the label, # starts an entity, brackets, braces,
// pipes and angle brackets are shape and markup syntax, a backtick starts
// a markdown string, & an HTML entity.
var mermaidEntities = map[rune]string{
	'"': "#quot;", '#': "#35;", '[': "#91;", ']': "#93;", '{': "#123;", '}': "#125;",
	'|': "#124;", '<': "#60;", '>': "#62;", '`': "#96;", '&': "#38;",
}

// mermaidLabel escapes text for a quoted Mermaid label `id["..."]`: the
// characters in mermaidEntities become entity codes and every line break
// or other control or separator character becomes a space, so the label
// stays on one line and inside its quotes. Bidirectional override
// characters are dropped so a title cannot display reversed. Other Unicode
// passes through.
func mermaidLabel(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for _, c := range text {
		if e, ok := mermaidEntities[c]; ok {
			b.WriteString(e)
			continue
		}
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029' {
			b.WriteByte(' ')
			continue
		}
		if c >= '\u202a' && c <= '\u202e' || c >= '\u2066' && c <= '\u2069' {
			continue // bidirectional overrides could make a label read backwards
		}
		b.WriteRune(c)
	}
	return b.String()
}
