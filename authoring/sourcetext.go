package authoring

import (
	"context"
	"fmt"
	"sort"

	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/store"
)

// Draft states of a source text: whether the citations it shows come from
// a draft at all.
const (
	// DraftNone: the project has no draft, so nothing cites the source.
	DraftNone = "none"
	// DraftInvalid: the draft does not compile, so its quotes cannot be
	// checked and nothing is shown citing the source.
	DraftInvalid = "invalid"
	// DraftCompiled: the citations are the compiled draft's.
	DraftCompiled = "compiled"
)

// SourceText is one source's extracted text as an author reads it beside
// the draft: page by page, cut into the clauses coverage counts, each
// with the draft's citations that rest on it, so the uncited provisions
// stand out.
type SourceText struct {
	// Source is the source as stored (with its text).
	Source store.ProjectSource
	// Draft is DraftNone, DraftInvalid or DraftCompiled.
	Draft string
	// Pages are the text's pages: a PDF's pages in order, any other
	// source one page.
	Pages []SourcePage
	// Clauses are the text's clauses (source.Clauses) in text order; a
	// clause that runs over a page break is given once per page, its
	// pieces sharing a Number.
	Clauses []SourceClause
	// Coverage counts the clauses as the provenance report does.
	Coverage ClauseCoverage
	// Unplaced are the draft's citations of this source that rest on no
	// clause: a quote not found, with no passage near enough.
	Unplaced []ClauseCitation
}

// SourcePage is one page of a source's extracted text.
type SourcePage struct {
	Page int    `json:"page" minimum:"1" doc:"The page number, from 1; a text, Markdown or HTML source is page 1 alone."`
	Text string `json:"text" doc:"The page's extracted text, the text quotes are verified against."`
}

// SourceClause is one clause of a source, placed on its page.
type SourceClause struct {
	Number int    `json:"number" minimum:"1" doc:"The clause's number in the source, from 1. A clause that runs over a page break is given once per page, both pieces with the same number."`
	Page   int    `json:"page" minimum:"1" doc:"The page the clause (or this piece of it) is on."`
	Start  int    `json:"start" minimum:"0" doc:"Byte offset (UTF-8) of the clause's first character in its page's text."`
	End    int    `json:"end" minimum:"0" doc:"Byte offset just past the clause's last character in its page's text."`
	Text   string `json:"text" doc:"The clause as it stands in the page's text."`
	// Heading is true for a heading line (source.Clause.Heading).
	Heading bool `json:"heading" doc:"Whether the clause is a heading: a short line without a sentence, or a numbered section title (\"§ 2611. Definitions\", \"(A) In general\"). Coverage does not count it."`
	// Counted is false for a heading and for a clause of fewer than
	// MinClauseWords words (a number), which coverage leaves out.
	Counted bool `json:"counted" doc:"Whether coverage counts the clause: false for a heading, and for a number or fragment of fewer than 4 words, which states nothing a rule could cite."`
	// CitedBy are the draft's citations resting on the clause.
	CitedBy []ClauseCitation `json:"cited_by" nullable:"false" doc:"The draft's citations resting on the clause: a verified quote that overlaps it, or an unverified one whose nearest passage does (verified false). Empty for an uncited clause."`
}

// ClauseCitation is one citation of the draft: a criterion's quote, or a
// named value's or table's.
type ClauseCitation struct {
	CriterionID string `json:"criterion_id" doc:"The criterion that cites; empty when a named value or table does (value_id)."`
	ValueID     string `json:"value_id,omitempty" doc:"The named value or table that cites; absent when a criterion does."`
	SourceID    string `json:"source_id" doc:"The source as the draft declares it (its id in the rules)."`
	Quote       string `json:"quote" doc:"The quote as written in the draft."`
	Verified    bool   `json:"verified" doc:"True when the quote is in the source's text word for word; false when only its nearest passage is."`
}

// ClauseCoverage counts a source's clauses as the draft's provenance
// report does: only counted clauses, cited by a verified quote.
type ClauseCoverage struct {
	Clauses      int     `json:"clauses" doc:"The clauses coverage counts."`
	CitedClauses int     `json:"cited_clauses" doc:"Those a verified quote overlaps."`
	Share        float64 `json:"share" minimum:"0" maximum:"1" doc:"cited_clauses / clauses; 0 for a source without clauses."`
}

// SourceText reads one source of the project with the clauses of its
// text and what in the current draft cites each. A project or source the
// tenant does not hold is ErrNotFound; a project without a draft, or one
// whose draft does not compile, gives every clause uncited and says so in
// Draft.
func (s *Drafts) SourceText(ctx context.Context, tenantID, projectID, sourceID string) (SourceText, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return SourceText{}, err
	}
	sources, err := s.store.ProjectSources(ctx, tenantID, projectID, true)
	if err != nil {
		return SourceText{}, err
	}
	var src *store.ProjectSource
	for i := range sources {
		if sources[i].ID == sourceID {
			src = &sources[i]
		}
	}
	if src == nil {
		return SourceText{}, fmt.Errorf("source %q of project %q: %w", sourceID, projectID, store.ErrNotFound)
	}
	draft, quotes := DraftNone, []QuoteCheck(nil)
	if p.DraftText != nil {
		w, err := s.workUp(p, sources, nil)
		if err != nil {
			return SourceText{}, err
		}
		draft = DraftInvalid
		if w.Rules != nil {
			draft, quotes = DraftCompiled, w.Provenance.Quotes
		}
	}
	st := sourceText(*src, quotes)
	st.Draft = draft
	return st, nil
}

// sourceText cuts src's text into pages and clauses and places on each
// clause the quotes of quotes checked against src.
func sourceText(src store.ProjectSource, quotes []QuoteCheck) SourceText {
	text := src.Text
	starts := src.Pages
	if !pageStarts(starts, len(text)) {
		starts = []int{0}
	}
	st := SourceText{Source: src, Pages: make([]SourcePage, len(starts)), Clauses: []SourceClause{}, Unplaced: []ClauseCitation{}}
	for i, at := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		st.Pages[i] = SourcePage{Page: i + 1, Text: text[at:end]}
	}

	// Where each of this source's quotes rests: the verified ones where
	// they were found, the others at their nearest passage.
	var cites []ClauseCitation
	var spans, verified [][2]int
	for _, q := range quotes {
		if q.ProjectSourceID != src.ID {
			continue
		}
		c := ClauseCitation{CriterionID: q.CriterionID, ValueID: q.ValueID, SourceID: q.SourceID, Quote: q.Quote, Verified: q.Verified}
		switch {
		case q.Verified:
			spans = append(spans, [2]int{q.start, q.end})
			verified = append(verified, [2]int{q.start, q.end})
		case q.Nearest != nil:
			spans = append(spans, [2]int{q.Nearest.Offset, q.Nearest.End})
		default:
			st.Unplaced = append(st.Unplaced, c)
			continue
		}
		cites = append(cites, c)
	}

	clauses := source.Clauses(text)
	counted := substantive(text, clauses)
	covered := source.Coverage(text, counted, verified)
	st.Coverage.Clauses = len(counted)
	for _, ok := range covered {
		if ok {
			st.Coverage.CitedClauses++
		}
	}
	if st.Coverage.Clauses > 0 {
		st.Coverage.Share = float64(st.Coverage.CitedClauses) / float64(st.Coverage.Clauses)
	}

	// Each citation on the clauses its span overlaps (clauses are in
	// text order, so the first is found by search).
	citedBy := make([][]ClauseCitation, len(clauses))
	placed := make([]bool, len(cites))
	for i, span := range spans {
		if span[0] >= span[1] {
			continue
		}
		first := sort.Search(len(clauses), func(k int) bool { return clauses[k].End > span[0] })
		for k := first; k < len(clauses) && clauses[k].Start < span[1]; k++ {
			citedBy[k] = append(citedBy[k], cites[i])
			placed[i] = true
		}
	}
	for n, c := range clauses {
		isCounted := counts(text, c)
		by := citedBy[n]
		if by == nil {
			by = []ClauseCitation{}
		}
		// Cut the clause at the page breaks it runs over.
		for from := c.Start; from < c.End; {
			page := source.PageOf(starts, from)
			pageStart, pageEnd := starts[page-1], len(text)
			if page < len(starts) {
				pageEnd = starts[page]
			}
			to := min(c.End, pageEnd)
			piece, ok := trimmed(text, from, to)
			if ok {
				st.Clauses = append(st.Clauses, SourceClause{Number: n + 1, Page: page, Start: piece.Start - pageStart, End: piece.End - pageStart,
					Text: piece.Text(text), Heading: c.Heading, Counted: isCounted, CitedBy: by})
			}
			from = to
		}
	}
	// A nearest passage that overlaps no clause (white space between
	// them) leaves its citation unplaced.
	for i, ok := range placed {
		if !ok {
			st.Unplaced = append(st.Unplaced, cites[i])
		}
	}
	return st
}

// pageStarts reports whether starts are page offsets of a text of n
// bytes as extraction records them: the first 0, each after the one
// before, none past the end. Any others (none is ever stored) read the
// text as one page rather than fail.
func pageStarts(starts []int, n int) bool {
	if len(starts) == 0 || starts[0] != 0 {
		return false
	}
	for i := 1; i < len(starts); i++ {
		if starts[i] < starts[i-1] || starts[i] > n {
			return false
		}
	}
	return true
}

// trimmed is text[from:to] without white space at either end; false when
// nothing is left.
func trimmed(text string, from, to int) (source.Clause, bool) {
	for from < to && isSpace(text[from]) {
		from++
	}
	for to > from && isSpace(text[to-1]) {
		to--
	}
	return source.Clause{Start: from, End: to}, from < to
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v'
}
