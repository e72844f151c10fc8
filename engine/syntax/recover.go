package syntax

// This file is how the parser recovers from a syntax error so that the
// first error reported is the cause and its consequences are not reported
// at all. Three things work together:
//
//   - The parser resumes at the nearest sensible point instead of giving
//     up on the declaration: a bad condition or cite line costs that line
//     (the criterion is kept), a bad criterion costs that criterion (the
//     group is kept), a bad header is skipped up to the body that follows
//     it, and a bad declaration costs that declaration. Skipping counts
//     braces, so a block that is skipped is skipped whole.
//   - What failed is recorded (failures), and the checker stays quiet
//     about what follows from it: a group whose criteria failed is not
//     "empty", a name whose declaration failed is not "unknown", a file
//     whose only fields failed does not "declare no fields".
//   - One error per line (ErrorList.addFirst, ErrorList.notOnLinesOf):
//     once a line has a syntax error, further complaints about that line,
//     the checker's included, are almost always about the parser's
//     reading of it.

// declKind is the kind of a top-level declaration whose id other
// declarations refer to.
type FailedKind uint8

const (
	declNone FailedKind = iota
	FailedSection
	FailedSource
	FailedField
	FailedGroup
	FailedValue
	FailedList
	// declUnknown is a declaration whose keyword was not understood, so
	// that it may have meant any kind.
	declUnknown
)

// failures records the declarations that failed to parse, so that the
// checker does not report their absence or the uses of their ids.
type Failures struct {
	// ids holds, per kind, the ids of the declarations of that kind that
	// failed; "" stands for one that failed before its id could be read.
	ids map[FailedKind]map[string]bool
}

// add records that a declaration of kind with id ("" when unknown) failed.
func (f *Failures) add(kind FailedKind, id string) {
	if kind == declNone {
		return
	}
	if f.ids == nil {
		f.ids = map[FailedKind]map[string]bool{}
	}
	if f.ids[kind] == nil {
		f.ids[kind] = map[string]bool{}
	}
	f.ids[kind][id] = true
}

// any reports whether some declaration that may have been of kind failed:
// then "the file declares no <kind>" is a consequence, not a cause.
func (f *Failures) Any(kind FailedKind) bool {
	return len(f.ids[kind]) > 0 || len(f.ids[declUnknown]) > 0
}

// covers reports whether a use of id, of a declaration of kind, may refer
// to a declaration that failed: one of that id (of that kind, or of a
// keyword not understood), or one of that kind whose id was never read.
func (f *Failures) Covers(kind FailedKind, id string) bool {
	return f.ids[kind][id] || f.ids[kind][""] || f.ids[declUnknown][id]
}

// declaring is the declaration being parsed, recorded as failed when it
// does.
type declaring struct {
	// kind is its kind; declNone for a header without an id (name,
	// description, effective, outcome).
	kind FailedKind
	// id is its id once read, "" before.
	id string
}

// syncLevel says what the parser was reading when it failed, which says
// where it may resume.
type syncLevel uint8

const (
	// syncTop resumes at the next declaration.
	syncTop syncLevel = iota
	// syncGroup resumes at the next criterion, or at the } closing the
	// group.
	syncGroup
	// syncCriterion resumes at the next cite line, or at the } closing the
	// criterion.
	syncCriterion
)

// try runs f and reports whether it finished; a bailout (the error is
// already reported) is recovered and false returned, with the current
// token where the error was found. The caller decides where to resume.
func (p *parser) try(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isBailout := r.(bailout); !isBailout {
				panic(r)
			}
			p.depth = 0
			ok = false
		}
	}()
	f()
	return true
}

// guard runs f, which must consume at least its first token before it can
// fail, and on a bailout skips to where level resumes; it reports whether
// f finished.
func (p *parser) guard(level syncLevel, f func()) bool {
	if p.try(f) {
		return true
	}
	p.skip(level, 0)
	return false
}

// atDeclaration reports whether the current token starts a top-level
// declaration: a declaration keyword first on its line. `description` is
// also a field attribute, which is indented; the header is not.
func (p *parser) atDeclaration() bool {
	if !p.tok.lineStart || p.tok.kind != tokIdent || !topLevel[p.tok.text] {
		return false
	}
	return p.tok.text != "description" || p.tok.pos.Col == 1
}

// atCriterion reports whether the current token is a criterion keyword
// first on its line.
func (p *parser) atCriterion() bool { return p.tok.lineStart && p.is("criterion") }

// skip advances to the next token where level resumes, depth being the
// number of braces already open in the part being skipped. It stops at
// the end of the file and at a declaration whatever the braces (a missing
// } must not swallow the rest of the file); a group also resumes at the
// next criterion and at its own }, a criterion at its next cite line and
// at its own }. A block opened and closed inside the skipped part is
// skipped whole; at the top level, a skipped block ends the skip.
func (p *parser) skip(level syncLevel, depth int) {
	for {
		switch {
		case p.tok.kind == tokEOF || p.atDeclaration():
			return
		case level >= syncGroup && p.atCriterion():
			return
		case depth == 0 && level >= syncGroup && p.is("}"):
			return
		case depth == 0 && level == syncCriterion && p.is("cite"):
			return
		case p.is("{"):
			depth++
		case p.is("}") && depth > 0:
			depth--
			if depth == 0 {
				p.next()
				if level == syncTop {
					return
				}
				continue
			}
		}
		p.next()
	}
}

// skipHeader advances past the rest of a header that failed to parse to
// the { opening its body, and consumes it; level is where the header
// stands: syncTop for a group's, syncGroup for a criterion's. It reports
// false when the body cannot be found: a declaration, the end of the file
// or a } (for a criterion also another criterion) comes first. A body
// whose { is missing is taken to start at the first line that can only be
// body: a criterion, for a group; a cite line, for a criterion.
func (p *parser) skipHeader(level syncLevel) bool {
	for {
		switch {
		case p.is("{"):
			p.next()
			return true
		case p.tok.kind == tokEOF || p.atDeclaration() || p.is("}"):
			return false
		case level == syncTop && p.atCriterion():
			return true
		case level == syncGroup && p.atCriterion():
			return false
		case level == syncGroup && p.tok.lineStart && p.is("cite"):
			return true
		}
		p.next()
	}
}

// open consumes the { that opens the body of a group or criterion (level
// syncGroup or syncCriterion: what the body holds). When it is missing, it
// reports that and, if the body evidently starts on the next line (a
// criterion, for a group; anything but a }, a criterion or a declaration,
// for a criterion), reads on as if the { were there; otherwise it fails.
func (p *parser) open(what string, level syncLevel) {
	if p.is("{") {
		p.next()
		return
	}
	body := p.atCriterion()
	if level == syncCriterion {
		body = !(p.tok.kind == tokEOF || p.atDeclaration() || p.atCriterion() || p.is("}"))
	}
	if p.tok.lineStart && body {
		p.errorAtEnd("expected { to open the %s, found %s", what, p.describe())
		return
	}
	p.fail("expected { to open the %s, found %s", what, p.describe())
}

// errorAtEnd reports an error at the end of the previous token: the line
// that lacks something (a closing brace, say) rather than the next one.
func (p *parser) errorAtEnd(format string, args ...any) {
	pos := p.prevEnd
	if pos.Line == 0 {
		pos = p.tok.pos
	}
	p.errorf(pos, format, args...)
}

// notDeclaration fails at a token that cannot start a declaration. A word
// that is not a keyword (a misspelt one, say) followed by a name on the
// same line is taken for a declaration of that name, so its uses are not
// reported as unknown; so is a field name at the start of a line (a field
// line without its keyword).
func (p *parser) notDeclaration() {
	pos, found := p.tok.pos, p.describe()
	switch {
	case p.is("}"):
		p.errorf(pos, "found } where a declaration should start: it closes no group or criterion (one } too many?)")
		panic(bailout{})
	case p.tok.kind == tokField:
		p.failed.add(FailedField, p.tok.text)
	case p.tok.kind == tokIdent:
		p.next()
		if !p.tok.lineStart && (p.tok.kind == tokIdent || p.tok.kind == tokField) {
			p.failed.add(declUnknown, p.tok.text)
		}
	}
	hint := ""
	if found == `"criterion"` {
		hint = ": a criterion belongs inside a group { ... }"
	}
	p.errorf(pos, "expected a declaration (ruleset, section, name, description, effective, source, field, value, group or outcome), found %s%s", found, hint)
	panic(bailout{})
}
