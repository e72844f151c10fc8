package authoring

import (
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// sourceText places each clause on its page, a clause over a page break
// once per page with one number, and each quote on the clauses it (or its
// nearest passage) overlaps; quotes of other sources are not this one's.
func TestSourceTextPages(t *testing.T) {
	t.Parallel()
	page1 := "Grant Act.\n\nA person qualifies if the person\n"
	page2 := "is at least 18 years old. The officer may approve the grant.\n"
	text := page1 + page2
	src := store.ProjectSource{ID: "src_a", Text: text, Pages: []int{0, len(page1)}}
	at := func(s string) (int, int) {
		i := strings.Index(text, s)
		return i, i + len(s)
	}
	// A verified quote's span, as engine.SourceText.Locate gives it: white
	// space in the text matches a space of the quote.
	quote := func(criterion, sourceID, q string, verified bool) QuoteCheck {
		c := QuoteCheck{CriterionID: criterion, SourceID: "law", ProjectSourceID: sourceID, Quote: q, Verified: verified}
		if verified {
			var ok bool
			if c.start, c.end, ok = engine.NewSourceText(src.Text).Locate(q); !ok {
				t.Fatalf("%q is not in the text", q)
			}
		}
		return c
	}
	nearStart, nearEnd := at("may approve the grant")
	near := quote("officer", "src_a", "may aprove the grant", false)
	near.Nearest = &NearestPassage{Offset: nearStart, End: nearEnd}
	quotes := []QuoteCheck{
		quote("adult", "src_a", "the person is at least 18", true), // over the page break
		near,
		quote("adult", "src_a", "must reside here", false), // found nowhere near
		quote("other", "src_b", "Grant Act", true),         // another source's
	}
	st := sourceText(src, quotes)

	adult := ClauseCitation{CriterionID: "adult", SourceID: "law", Quote: "the person is at least 18", Verified: true}
	officer := ClauseCitation{CriterionID: "officer", SourceID: "law", Quote: "may aprove the grant", Verified: false}
	want := []SourceClause{
		{Number: 1, Page: 1, Start: 0, End: len("Grant Act."), Text: "Grant Act.", Counted: false, CitedBy: []ClauseCitation{}},
		{Number: 2, Page: 1, Start: strings.Index(page1, "A person"), End: len(page1) - 1, Text: "A person qualifies if the person", Counted: true, CitedBy: []ClauseCitation{adult}},
		{Number: 2, Page: 2, Start: 0, End: len("is at least 18 years old."), Text: "is at least 18 years old.", Counted: true, CitedBy: []ClauseCitation{adult}},
		{Number: 3, Page: 2, Start: strings.Index(page2, "The officer"), End: len(page2) - 1, Text: "The officer may approve the grant.", Counted: true, CitedBy: []ClauseCitation{officer}},
	}
	if !reflect.DeepEqual(st.Clauses, want) {
		t.Errorf("clauses:\n got %+v\nwant %+v", st.Clauses, want)
	}
	if len(st.Pages) != 2 || st.Pages[0] != (SourcePage{Page: 1, Text: page1}) || st.Pages[1] != (SourcePage{Page: 2, Text: page2}) {
		t.Errorf("pages: %+v", st.Pages)
	}
	for _, c := range st.Clauses {
		if got := st.Pages[c.Page-1].Text[c.Start:c.End]; got != c.Text {
			t.Errorf("clause %d on page %d: [%d:%d] is %q, want %q", c.Number, c.Page, c.Start, c.End, got, c.Text)
		}
	}
	if wantCov := (ClauseCoverage{Clauses: 2, CitedClauses: 1, Share: 0.5}); st.Coverage != wantCov {
		t.Errorf("coverage %+v, want %+v", st.Coverage, wantCov)
	}
	if wantUnplaced := []ClauseCitation{{CriterionID: "adult", SourceID: "law", Quote: "must reside here"}}; !reflect.DeepEqual(st.Unplaced, wantUnplaced) {
		t.Errorf("unplaced %+v, want %+v", st.Unplaced, wantUnplaced)
	}

	// A source that is not paged is one page; without quotes nothing is cited.
	st = sourceText(store.ProjectSource{ID: "src_c", Text: "One two three four."}, nil)
	if len(st.Pages) != 1 || st.Pages[0].Page != 1 || len(st.Clauses) != 1 || len(st.Clauses[0].CitedBy) != 0 || st.Coverage.Clauses != 1 {
		t.Errorf("an unpaged source: %+v", st)
	}
	for _, pages := range [][]int{{5, 10}, {0, 30, 10}, {0, 10_000}} {
		st = sourceText(store.ProjectSource{ID: "src_e", Text: text, Pages: pages}, nil)
		if len(st.Pages) != 1 || st.Pages[0].Text != text || len(st.Clauses) != 3 {
			t.Errorf("page offsets %v: %+v", pages, st)
		}
	}
	st = sourceText(store.ProjectSource{ID: "src_d"}, nil)
	if len(st.Pages) != 1 || st.Pages[0].Text != "" || len(st.Clauses) != 0 || st.Coverage != (ClauseCoverage{}) {
		t.Errorf("an empty text: %+v", st)
	}
}
