package lsp

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/lsp/jsonrpc"
)

// format is textDocument/formatting: the canonical printer's text (`eligo
// fmt`) as one edit of the whole document, none when it is canonical. A
// text with syntax errors is not formatted, as `eligo fmt` leaves it.
func (s *Server) format(c *compiled, _ string, _ DocumentParams) (any, *jsonrpc.Error) {
	f, errs := syntax.Parse("document.rules", []byte(c.text.src))
	if len(errs) > 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeRequestFailed, Message: fmt.Sprintf("not formatted: the text has syntax errors, first at %s: %s", errs[0].Pos, errs[0].Msg)}
	}
	out := string(syntax.Print(f))
	if out == c.text.src {
		return []TextEdit{}, nil
	}
	return []TextEdit{{Range: Range{End: c.text.end()}, NewText: out}}, nil
}

// definition is textDocument/definition: where the field, source, group
// or criterion under the cursor is declared.
func (s *Server) definition(c *compiled, uri string, p PositionParams) (any, *jsonrpc.Error) {
	o, ok := c.names.at(c.text.fromLSP(p.Position))
	if !ok {
		return nil, nil
	}
	d, ok := c.names.decl(o.kind, o.name)
	if !ok {
		return nil, nil
	}
	return []Location{{URI: uri, Range: c.text.span(d.start, d.end)}}, nil
}

// references is textDocument/references: every place the name under the
// cursor is written, its declaration when the client asks for it.
func (s *Server) references(c *compiled, uri string, p PositionParams) (any, *jsonrpc.Error) {
	o, ok := c.names.at(c.text.fromLSP(p.Position))
	if !ok {
		return []Location{}, nil
	}
	withDecl := p.Context == nil || p.Context.IncludeDeclaration
	out := []Location{}
	for _, r := range c.names.occ {
		if r.kind == o.kind && r.name == o.name && (withDecl || !r.decl) {
			out = append(out, Location{URI: uri, Range: c.text.span(r.start, r.end)})
		}
	}
	return out, nil
}

// symbols is textDocument/documentSymbol: the outline, sources and fields
// then each group with its criteria, from the parsed file's Declarations
// (so a text with errors still has one).
func (s *Server) symbols(c *compiled, _ string, _ DocumentParams) (any, *jsonrpc.Error) {
	out := []DocumentSymbol{}
	for _, d := range c.file.Declarations() {
		sym := DocumentSymbol{Name: d.ID}
		switch d.Kind {
		case syntax.DeclSource:
			sym.Kind, sym.Detail = SymbolKindModule, d.Source.Title
		case syntax.DeclField:
			sym.Kind, sym.Detail = SymbolKindField, d.Field.Type
		case syntax.DeclGroup:
			sym.Kind, sym.Detail = SymbolKindClass, d.Group.Kind+" "+d.Group.Title
		case syntax.DeclCriterion:
			sym.Kind, sym.Detail = SymbolKindFunction, d.Criterion.Title
		case syntax.DeclValue:
			sym.Kind, sym.Detail = SymbolKindVariable, d.Value.Type+" "+d.Value.Body.Title
		case syntax.DeclList:
			sym.Kind, sym.Detail = SymbolKindArray, "list up to "+d.List.Max+" "+d.List.Title
		}
		if o, ok := c.names.decl(d.Kind, d.ID); ok {
			sym.Range, sym.SelectionRange = c.text.span(o.extentStart, o.extentEnd), c.text.span(o.start, o.end)
		} else {
			sym.Range = c.lineRange(d.Pos)
			sym.SelectionRange = sym.Range
		}
		if d.Kind == syntax.DeclCriterion && len(out) > 0 && out[len(out)-1].Kind == SymbolKindClass {
			parent := &out[len(out)-1]
			parent.Children = append(parent.Children, sym)
			continue
		}
		out = append(out, sym)
	}
	return out, nil
}

// hover is textDocument/hover: what a field, group, criterion, source,
// cite line or function is.
func (s *Server) hover(c *compiled, _ string, p PositionParams) (any, *jsonrpc.Error) {
	at := c.text.fromLSP(p.Position)
	i := c.names.tokenAt(at)
	if i < 0 {
		return nil, nil
	}
	tok := c.names.code[i]
	rng := c.text.span(tok.Start, tok.End)
	var md string
	if cite, crit := c.citeOn(at.Line); cite != nil {
		md = c.citeHover(cite, crit)
	} else if o, ok := c.names.at(at); ok {
		md = c.declHover(o)
	} else if fd, ok := syntax.DescribeFunction(tok.Text); ok && tok.Kind == syntax.TokenIdent && i+1 < len(c.names.code) && c.names.code[i+1].Text == "(" {
		md = fmt.Sprintf("```\n%s -> %s\n```\n%s", fd.Signature, fd.Result, fd.Meaning)
	}
	if md == "" {
		return nil, nil
	}
	return Hover{Contents: MarkupContent{Kind: "markdown", Value: md}, Range: &rng}, nil
}

// citeOn is the cite line on line, with its criterion.
func (c *compiled) citeOn(line int) (*syntax.CiteDecl, *syntax.CriterionDecl) {
	for _, d := range c.file.Declarations() {
		if d.Kind != syntax.DeclCriterion {
			continue
		}
		for _, ci := range d.Criterion.Cites {
			if ci.Pos.Line == line {
				return ci, d.Criterion
			}
		}
	}
	return nil, nil
}

// citeHover is a cite's source and whether its quote verifies against
// the source text of the document's folder.
func (c *compiled) citeHover(cite *syntax.CiteDecl, crit *syntax.CriterionDecl) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**cite** of criterion `%s`\n\n", crit.ID)
	if src := c.sourceDecl(cite.Source); src != nil {
		fmt.Fprintf(&b, "Source `%s`: %s  \n%s: %s  \nlicence: %s\n\n", src.ID, src.Title, src.LocKind, src.Loc, src.Licence)
	} else {
		fmt.Fprintf(&b, "Source `%s` is not declared.\n\n", cite.Source)
	}
	if c.path == "" {
		b.WriteString("Quote not verified: the document is not saved in a ruleset folder.")
		return b.String()
	}
	path, text := readSource(filepath.Dir(c.path))
	switch {
	case text == nil:
		fmt.Fprintf(&b, "Quote not verified: there is no %s beside this file.", strings.Join(folder.SourceNames(), ", "))
	default:
		if why := quoteProblem(folder.NewQuotes(text), cite.Source, cite.Quote); why != "" {
			fmt.Fprintf(&b, "Quote **not verified**: %s.", why)
		} else {
			fmt.Fprintf(&b, "Quote verified: it appears in section %s of %s.", cite.Source, filepath.Base(path))
		}
	}
	return b.String()
}

// sourceDecl is the declaration of source id, nil when none.
func (c *compiled) sourceDecl(id string) *syntax.SourceDecl {
	for _, s := range c.file.Sources {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// declHover describes the declared name of o.
func (c *compiled) declHover(o occurrence) string {
	var b strings.Builder
	for _, d := range c.file.Declarations() {
		if d.Kind != o.kind || d.ID != o.name {
			continue
		}
		switch d.Kind {
		case syntax.DeclField:
			fieldHover(&b, d.Field)
		case syntax.DeclSource:
			s := d.Source
			fmt.Fprintf(&b, "**source** `%s`: %s  \n%s: %s  \nlicence: %s", s.ID, s.Title, s.LocKind, s.Loc, s.Licence)
		case syntax.DeclGroup:
			g := d.Group
			fmt.Fprintf(&b, "**group** `%s` (%s): %s\n\n", g.ID, g.Kind, g.Title)
			if g.Kind == "any" {
				fmt.Fprintf(&b, "Satisfied when any of its %d criteria is.", len(g.Criteria))
			} else {
				fmt.Fprintf(&b, "Satisfied when all of its %d criteria are.", len(g.Criteria))
			}
		case syntax.DeclCriterion:
			c.criterionHover(&b, d.Criterion, d.Group)
		case syntax.DeclValue:
			c.valueHover(&b, d.Value)
		case syntax.DeclList:
			l := d.List
			fmt.Fprintf(&b, "**list** `%s`: %s, up to %s\n\n%s\n\nRead its members with count(%s ...), sum(%s.<field> ...), any(%s where ...) and all(%s where ...).",
				l.Name, l.Title, l.Max, l.Question, l.Name, l.Name, l.Name, l.Name)
		}
		return b.String()
	}
	return ""
}

// fieldHover writes a field's type, question, label, unit, range,
// description, values with their labels, and notes.
func fieldHover(b *strings.Builder, f *syntax.FieldDecl) {
	fmt.Fprintf(b, "**field** `%s`: %s", f.ID, f.Type)
	if f.Unit != "" {
		fmt.Fprintf(b, " (%s)", f.Unit)
	}
	b.WriteString("\n\n")
	if f.Label != "" {
		fmt.Fprintf(b, "%s\n\n", f.Label)
	}
	if f.Question != "" {
		fmt.Fprintf(b, "Question: %s\n\n", f.Question)
	}
	if f.Range != nil {
		fmt.Fprintf(b, "Range: `%s..%s` (an answer outside it is a field error)\n\n", f.Range.Min, f.Range.Max)
	}
	if f.Description != "" {
		fmt.Fprintf(b, "%s\n\n", f.Description)
	}
	if len(f.Enum) > 0 {
		labels := map[string]string{}
		for _, o := range f.Options {
			labels[o.Value] = o.Label
		}
		b.WriteString("Values:\n")
		for _, v := range f.Enum {
			if l := labels[v]; l != "" {
				fmt.Fprintf(b, "- `%q`: %s\n", v, l)
			} else {
				fmt.Fprintf(b, "- `%q`\n", v)
			}
		}
		b.WriteString("\n")
	}
	for _, n := range f.Notes {
		fmt.Fprintf(b, "Note (%s): %s", n.Kind, n.Text)
		if n.Source != "" {
			fmt.Fprintf(b, " [source %s]", n.Source)
		}
		b.WriteString("\n\n")
	}
}

// criterionHover writes a criterion's title and its plain-language
// sentence (the one explanations use), or its condition as written when
// the text does not compile.
func (c *compiled) criterionHover(b *strings.Builder, cd *syntax.CriterionDecl, g *syntax.GroupDecl) {
	fmt.Fprintf(b, "**criterion** `%s` of group `%s`: %s\n\n", cd.ID, g.ID, cd.Title)
	if c.ruleset != nil {
		for gi := range c.ruleset.Groups {
			for ci := range c.ruleset.Groups[gi].Criteria {
				if cr := &c.ruleset.Groups[gi].Criteria[ci]; cr.ID == cd.ID {
					fmt.Fprintf(b, "In plain words: %s.", present.CriterionSentence(c.ruleset, cr))
					return
				}
			}
		}
	}
	if cd.Expr != nil {
		fmt.Fprintf(b, "Condition: `%s` (the text does not compile, so no plain-language sentence)", syntax.PrintExpr(cd.Expr))
	}
}

// valueHover writes a named value's or table's type, unit and title, its
// definition (or its keys and periods) and its citations.
func (c *compiled) valueHover(b *strings.Builder, v *syntax.ValueDecl) {
	kind := "value"
	if v.Table {
		kind = "table"
	}
	fmt.Fprintf(b, "**%s** `%s`: %s", kind, v.Body.ID, v.Type)
	if v.Unit != "" {
		fmt.Fprintf(b, " (%s)", v.Unit)
	}
	if v.Output {
		b.WriteString(", returned with the decision")
	}
	fmt.Fprintf(b, "\n\n%s\n\n", v.Body.Title)
	switch {
	case v.Body.Expr != nil:
		fmt.Fprintf(b, "= `%s`\n\n", syntax.PrintExpr(v.Body.Expr))
	case v.Table:
		keys := make([]string, len(v.Keys))
		for i, k := range v.Keys {
			keys[i] = syntax.PrintExpr(k)
		}
		if len(keys) > 0 {
			fmt.Fprintf(b, "Looked up by %s", strings.Join(keys, ", "))
		} else {
			b.WriteString("One figure")
		}
		if len(v.Periods) > 0 {
			fmt.Fprintf(b, " in %d periods", len(v.Periods))
		}
		b.WriteString(".\n\n")
	}
	for _, ci := range v.Body.Cites {
		fmt.Fprintf(b, "Cites %s: %q\n\n", ci.Source, ci.Quote)
	}
}

// completion is textDocument/completion: by what precedes the cursor,
// source ids (after cite or a note's source), enum values (where an enum
// field is compared or tested with in), group ids (in the outcome), else
// field ids, functions and keywords.
func (s *Server) completion(c *compiled, _ string, p PositionParams) (any, *jsonrpc.Error) {
	return c.complete(p.Position), nil
}

// complete is what is proposed at p, by what precedes it (see completion).
func (c *compiled) complete(p Position) CompletionList {
	at := c.text.fromLSP(p)
	// prev is the last token that ends before the cursor and is not the
	// word being typed.
	prev := -1
	for i, t := range c.names.code {
		if posBefore(at, t.End) || t.End == at && (t.Kind == syntax.TokenIdent || t.Kind == syntax.TokenField || t.Kind == syntax.TokenString) {
			break
		}
		prev = i
	}
	list := CompletionList{Items: []CompletionItem{}}
	add := func(kind int, detail string, labels ...string) {
		for _, l := range labels {
			list.Items = append(list.Items, CompletionItem{Label: l, Kind: kind, Detail: detail})
		}
	}
	code := c.names.code
	word := func(i int) string {
		if i < 0 || code[i].Start.Line != at.Line {
			return ""
		}
		return code[i].Text
	}
	switch {
	case word(prev) == "cite" || word(prev) == "source" && prev > 0 && code[prev-1].Start.Line == at.Line:
		for _, s := range c.file.Sources {
			add(CompletionKindReference, s.Title, s.ID)
		}
		return list
	case c.enumField(prev, at.Line) != nil:
		for _, v := range c.enumField(prev, at.Line).Enum {
			list.Items = append(list.Items, CompletionItem{Label: fmt.Sprintf("%q", v), Kind: CompletionKindEnumMember, InsertText: fmt.Sprintf("%q", v)})
		}
		return list
	case c.file.Outcome != nil && at.Line >= c.file.Outcome.Pos.Line:
		for _, g := range c.file.Groups {
			add(CompletionKindClass, g.Title, g.ID)
		}
		add(CompletionKindKeyword, "", "and", "or", "not")
		return list
	}
	for _, f := range c.file.Fields {
		add(CompletionKindField, f.Type, f.ID)
	}
	for _, v := range c.file.Values {
		if v.Body.ID != "" {
			add(CompletionKindVariable, v.Type+": "+v.Body.Title, v.Body.ID)
		}
	}
	for _, name := range syntax.Functions() {
		fd, _ := syntax.DescribeFunction(name)
		list.Items = append(list.Items, CompletionItem{Label: name, Kind: CompletionKindFunction, Detail: fd.Signature + " -> " + fd.Result})
	}
	add(CompletionKindKeyword, "", syntax.Keywords()...)
	return list
}

// enumField is the enum field compared at the cursor: the one before ==
// or != when prev is that operator, or before `in` when prev is the [ or a
// , of its list; nil when none.
func (c *compiled) enumField(prev, line int) *syntax.FieldDecl {
	code := c.names.code
	if prev < 1 || code[prev].Start.Line != line {
		return nil
	}
	var field string
	switch code[prev].Text {
	case "==", "!=":
		field = code[prev-1].Text
	case "[", ",":
		for i := prev; i > 0 && code[i].Start.Line == line; i-- {
			if code[i].Text == "in" {
				if code[i-1].Text == "not" && i > 1 {
					i--
				}
				field = code[i-1].Text
				break
			}
			if code[i].Text == "]" {
				return nil
			}
		}
	}
	for _, f := range c.file.Fields {
		if f.ID == field && len(f.Enum) > 0 {
			return f
		}
	}
	return nil
}

// didYouMean finds the compiler's suggestion in a message.
var didYouMean = regexp.MustCompile(`\(did you mean ([a-z][a-z0-9_.]*)\?\)`)

// codeActions is textDocument/codeAction: the compiler's suggestions for
// the errors in the range as quick fixes.
func (s *Server) codeActions(c *compiled, uri string, p CodeActionParams) (any, *jsonrpc.Error) {
	out := []CodeAction{}
	for _, e := range c.errs {
		rng := c.errorRange(e.Pos)
		if before(rng.End, p.Range.Start) || before(p.Range.End, rng.Start) {
			continue
		}
		diag := Diagnostic{Range: rng, Severity: SeverityError, Source: sourceCompile, Message: e.Msg}
		if title, edit, ok := c.fix(e, rng); ok {
			out = append(out, CodeAction{Title: title, Kind: "quickfix", Diagnostics: []Diagnostic{diag}, IsPreferred: true,
				Edit: WorkspaceEdit{Changes: map[string][]TextEdit{uri: {edit}}}})
		}
	}
	return out, nil
}

// fix is the edit that does what error e's message suggests, when it
// suggests one edit: the name it proposes, == for =, and/or/not for the
// symbols of other languages, straight quotes for curly ones, the quote
// an unclosed string lacks, the repeated operand of a chained comparison.
func (c *compiled) fix(e *syntax.Error, rng Range) (string, TextEdit, bool) {
	i := c.names.tokenAt(e.Pos)
	var tok syntax.Token
	if i >= 0 {
		tok = c.names.code[i]
	}
	switch {
	case didYouMean.MatchString(e.Msg):
		name := didYouMean.FindStringSubmatch(e.Msg)[1]
		return "Change to " + name, TextEdit{Range: rng, NewText: name}, true
	case strings.HasPrefix(e.Msg, `unexpected "="`):
		return "Change = to ==", TextEdit{Range: rng, NewText: "=="}, true
	case strings.HasPrefix(e.Msg, "unexpected '") && strings.Contains(e.Msg, "write and, or, not") && tok.Text != "":
		word := map[byte]string{'&': "and", '|': "or", '!': "not"}[tok.Text[0]]
		if word == "" {
			return "", TextEdit{}, false
		}
		return fmt.Sprintf("Change %s to %s", tok.Text, word), TextEdit{Range: rng, NewText: word}, true
	case strings.HasPrefix(e.Msg, "curly quote") && tok.Text != "":
		straight := strings.NewReplacer("\u201c", `"`, "\u201d", `"`).Replace(tok.Text)
		if !strings.HasSuffix(straight, `"`) || len(straight) < 2 {
			straight += `"`
		}
		return "Use straight quotes", TextEdit{Range: rng, NewText: straight}, true
	case strings.HasPrefix(e.Msg, "this string is not closed"):
		line := c.text.line(e.Pos.Line - 1)
		end := Position{Line: e.Pos.Line - 1, Character: utf16Width(strings.TrimRight(line, " \t"))}
		return `Close the string`, TextEdit{Range: Range{Start: end, End: end}, NewText: `"`}, true
	case strings.HasPrefix(e.Msg, "comparisons do not chain") && i > 0:
		return c.unchain(i)
	}
	return "", TextEdit{}, false
}

// unchain fixes `a < b < c`, the second operator at code[i], as `a < b
// and b < c`: the middle operand, the tokens between the two operators,
// repeated after an and.
func (c *compiled) unchain(i int) (string, TextEdit, bool) {
	code := c.names.code
	compare := []string{"==", "!=", "<", "<=", ">", ">=", "in"}
	line := code[i].Start.Line
	depth := 0
	for j := i - 1; j >= 0 && code[j].Start.Line == line; j-- {
		switch code[j].Text {
		case ")", "]":
			depth++
		case "(", "[":
			depth--
		}
		if depth == 0 && code[j].Kind != syntax.TokenString && slices.Contains(compare, code[j].Text) && j+1 < i {
			from, to := c.text.toLSP(code[j+1].Start), c.text.toLSP(code[i-1].End)
			middle := c.text.src[c.text.offset(from):c.text.offset(to)]
			at := c.text.toLSP(code[i].Start)
			return "Write the comparisons joined by and", TextEdit{Range: Range{Start: at, End: at}, NewText: "and " + middle + " "}, true
		}
		if depth < 0 {
			break
		}
	}
	return "", TextEdit{}, false
}
