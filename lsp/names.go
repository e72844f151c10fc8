package lsp

import (
	"slices"

	"github.com/eligo/eligo/engine/syntax"
)

// occurrence is one place a declared kind of name is written: where it is
// declared, or a use of it (a field in a condition, a source after cite
// or a note's source, a group in the outcome).
type occurrence struct {
	kind       syntax.DeclKind
	name       string
	start, end syntax.Pos
	decl       bool
	// extent is a declaration's whole span, keyword to last token (its
	// closing brace for a group or criterion); zero for a use.
	extentStart, extentEnd syntax.Pos
}

// topLevel are the keywords that start a declaration at the start of a
// line outside braces: where one declaration's extent ends.
var topLevel = []string{"ruleset", "section", "name", "description", "effective", "source", "list", "field", "value", "table", "group", "outcome"}

// names is the occurrences of a text, read from its tokens (so a text
// that does not parse still has them), in text order, with the tokens
// without comments.
type names struct {
	code []syntax.Token
	occ  []occurrence
}

func namesOf(toks []syntax.Token) *names {
	n := &names{}
	for _, t := range toks {
		if t.Kind != syntax.TokenComment {
			n.code = append(n.code, t)
		}
	}
	code := n.code
	depth, inOutcome := 0, false
	lineStart := func(i int) bool { return i == 0 || code[i-1].Start.Line != code[i].Start.Line }
	isWord := func(i int, w string) bool { return i >= 0 && code[i].Kind == syntax.TokenIdent && code[i].Text == w }
	// The named values the text declares, so that a bare name in an
	// expression is known for one of them.
	values, lists := map[string]bool{}, map[string]bool{}
	for i := 1; i < len(code); i++ {
		if (isWord(i-1, "value") || isWord(i-1, "table")) && lineStart(i-1) && (code[i].Kind == syntax.TokenIdent || code[i].Kind == syntax.TokenField) {
			values[code[i].Text] = true // member.countable is each member's value
		}
		if isWord(i-1, "list") && lineStart(i-1) && code[i].Kind == syntax.TokenIdent {
			lists[code[i].Text] = true
		}
	}
	for i, t := range code {
		switch {
		case t.Kind == syntax.TokenPunct && t.Text == "{":
			depth++
			continue
		case t.Kind == syntax.TokenPunct && t.Text == "}":
			depth = max(0, depth-1)
			continue
		}
		if depth == 0 && lineStart(i) && t.Kind == syntax.TokenIdent && slices.Contains(topLevel, t.Text) {
			inOutcome = t.Text == "outcome"
			continue
		}
		o := occurrence{name: t.Text, start: t.Start, end: t.End}
		switch {
		case t.Kind == syntax.TokenField && values[t.Text]:
			o.kind, o.decl = syntax.DeclValue, (isWord(i-1, "value") || isWord(i-1, "table")) && depth == 0 && lineStart(i-1)
		case t.Kind == syntax.TokenField:
			o.kind, o.decl = syntax.DeclField, isWord(i-1, "field")
		case t.Kind != syntax.TokenIdent:
			continue
		case isWord(i-1, "source"):
			o.kind, o.decl = syntax.DeclSource, depth == 0 && lineStart(i-1)
		case isWord(i-1, "cite"):
			o.kind = syntax.DeclSource
		case isWord(i-1, "group") && depth == 0 && lineStart(i-1):
			o.kind, o.decl = syntax.DeclGroup, true
		case isWord(i-1, "criterion"):
			o.kind, o.decl = syntax.DeclCriterion, true
		case (isWord(i-1, "value") || isWord(i-1, "table")) && depth == 0 && lineStart(i-1):
			o.kind, o.decl = syntax.DeclValue, true
		case isWord(i-1, "list") && depth == 0 && lineStart(i-1):
			o.kind, o.decl = syntax.DeclList, true
		case depth > 0 && lists[t.Text] && i > 0 && code[i-1].Text == "(":
			// count(member ...), any(member ...), all(member ...)
			o.kind = syntax.DeclList
		case !inOutcome && depth > 0 && values[t.Text] && !(i+1 < len(code) && code[i+1].Text == "("):
			o.kind = syntax.DeclValue
		case inOutcome && !slices.Contains([]string{"and", "or", "not", "true", "false"}, t.Text):
			o.kind = syntax.DeclGroup
		default:
			continue
		}
		if o.decl {
			o.extentStart, o.extentEnd = code[i-1].Start, extentEnd(code, i)
		}
		n.occ = append(n.occ, o)
	}
	return n
}

// extentEnd is the end of the declaration whose id is code[i]: its
// closing brace when it opens a block, else its last token before the
// next declaration.
func extentEnd(code []syntax.Token, i int) syntax.Pos {
	end := code[i].End
	line := code[i].Start.Line
	for j := i + 1; j < len(code); j++ {
		t := code[j]
		if t.Kind == syntax.TokenPunct && t.Text == "{" {
			depth := 0
			for k := j; k < len(code); k++ {
				switch code[k].Text {
				case "{":
					depth++
				case "}":
					depth--
				}
				if code[k].Kind == syntax.TokenPunct && depth == 0 {
					return code[k].End
				}
				end = code[k].End
			}
			return end
		}
		if t.Start.Line != line && (t.Kind == syntax.TokenIdent && (slices.Contains(topLevel, t.Text) || t.Text == "criterion") || t.Text == "}") {
			// The first token of a line that starts another declaration,
			// or closes the enclosing block.
			if code[j-1].Start.Line != t.Start.Line {
				return end
			}
		}
		end = t.End
	}
	return end
}

// at is the occurrence under p (engine position), if any.
func (n *names) at(p syntax.Pos) (occurrence, bool) {
	for _, o := range n.occ {
		if covers(o.start, o.end, p) {
			return o, true
		}
	}
	return occurrence{}, false
}

// decl is the declaration of the name of kind.
func (n *names) decl(kind syntax.DeclKind, name string) (occurrence, bool) {
	for _, o := range n.occ {
		if o.decl && o.kind == kind && o.name == name {
			return o, true
		}
	}
	return occurrence{}, false
}

// tokenAt is the index in code of the token under p, or -1.
func (n *names) tokenAt(p syntax.Pos) int {
	for i, t := range n.code {
		if covers(t.Start, t.End, p) {
			return i
		}
	}
	return -1
}

// covers reports whether p is in [start, end], a cursor just after a
// word being on it.
func covers(start, end, p syntax.Pos) bool {
	return !posBefore(p, start) && !posBefore(end, p)
}

func posBefore(a, b syntax.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}
