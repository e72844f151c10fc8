package projects

import (
	"encoding/base64"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/source/sourcetest"
)

// sourceTextRules is grantRules with the officer's quote misspelt (so it
// is not verified, and rests on its nearest passage) and a third quote
// found nowhere in the act.
var sourceTextRules = strings.Replace(strings.Replace(grantRules,
	`cite law "may, at their discretion, approve the grant"`, `cite law "may, at thier discretion, approve the grant"`, 1),
	`cite law "is at least 18 years old"`, `cite law "is at least 18 years old"`+"\n    "+`cite law "must reside in the state for six consecutive years"`, 1)

// get-project-source-text gives a text, an HTML and a two-page PDF source
// page by page, cut into clauses, each with the draft's citations resting
// on it; the uncited and uncounted clauses have none, and the quote found
// nowhere is unplaced.
func TestSourceText(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	adult := map[string]any{"criterion_id": "adult", "source_id": "law", "quote": "is at least 18 years old", "verified": true}
	officer := map[string]any{"criterion_id": "officer_approves", "source_id": "law", "quote": "may, at thier discretion, approve the grant", "verified": false}
	unplaced := []any{map[string]any{"criterion_id": "adult", "source_id": "law", "quote": "must reside in the state for six consecutive years", "verified": false}}
	pdf := sourcetest.PDF([][]string{
		{"Grant Act.", "", "Section 1. A person qualifies for the grant", "if the person is at least 18 years old."},
		{"Section 2. The officer may, at their discretion,", "approve the grant."},
	})
	// A clause as expected: its text, page, whether coverage counts it and
	// who cites it.
	type clause struct {
		text    string
		page    int
		counted bool
		citedBy []any
	}
	for _, tc := range []struct {
		name      string
		upload    map[string]any
		mediaType string
		pages     int
		clauses   []clause
	}{
		{"plain text", map[string]any{"filename": "grant.txt", "text": grantLaw}, "text/plain", 1, []clause{
			{"Grant Act.", 1, false, nil},
			{"Section 1.", 1, false, nil},
			{"A person qualifies for the grant if the person is at least 18 years old.", 1, true, []any{adult}},
			{"Section 2.", 1, false, nil},
			{"The officer may, at their discretion, approve the grant.", 1, true, []any{officer}},
		}},
		{"HTML", map[string]any{"filename": "grant.html", "text": "<!doctype html><title>Grant</title><script>var x = 1;</script><h1>Grant Act</h1>" +
			"<p>Section 1. A person qualifies for the grant if the person is at least 18 years old.</p><p>Section 2. The officer may, at their discretion, approve the grant.</p>"},
			"text/html", 1, []clause{
				{"Grant Act", 1, false, nil},
				{"Section 1.", 1, false, nil},
				{"A person qualifies for the grant if the person is at least 18 years old.", 1, true, []any{adult}},
				{"Section 2.", 1, false, nil},
				{"The officer may, at their discretion, approve the grant.", 1, true, []any{officer}},
			}},
		{"two-page PDF", map[string]any{"filename": "grant.pdf", "content_base64": base64.StdEncoding.EncodeToString(pdf)}, "application/pdf", 2, []clause{
			{"Grant Act.", 1, false, nil},
			{"Section 1.", 1, false, nil},
			{"A person qualifies for the grant\nif the person is at least 18 years old.", 1, true, []any{adult}},
			{"Section 2.", 2, false, nil},
			{"The officer may, at their discretion,\napprove the grant.", 2, true, []any{officer}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, f, key, http.MethodPost, "/projects/", map[string]any{"name": "Grant", "section_id": "grant", "source_text": "", "test_cases": grantCases})
			want(t, r, http.StatusCreated)
			base := "/projects/" + obj(t, r.Body)["project_id"].(string)
			tc.upload["url"], tc.upload["licence"], tc.upload["title"] = grantURL, "CC-BY-4.0", "Grant Act"
			r = call(t, f, key, http.MethodPost, base+"/sources", tc.upload)
			want(t, r, http.StatusCreated)
			srcID := obj(t, list(t, obj(t, r.Body)["sources"])[0])["source_id"].(string)
			path := base + "/sources/" + srcID + "/text"

			// Before a draft, and with one that does not compile, nothing
			// cites the source.
			for _, step := range []struct {
				rules, draft string
			}{{"", "none"}, {"section grant\nbanana\n", "invalid"}} {
				if step.rules != "" {
					want(t, call(t, f, key, http.MethodPut, base+"/draft", map[string]any{"rules": step.rules}), http.StatusOK)
				}
				r = call(t, f, key, http.MethodGet, path, nil)
				want(t, r, http.StatusOK)
				got := obj(t, r.Body)
				if got["draft"] != step.draft || !reflect.DeepEqual(got["coverage"], map[string]any{"clauses": 2.0, "cited_clauses": 0.0, "share": 0.0}) {
					t.Fatalf("draft %s: %s", step.draft, r.Raw)
				}
				for _, c := range list(t, got["clauses"]) {
					if n := len(list(t, obj(t, c)["cited_by"])); n != 0 {
						t.Errorf("draft %s: clause %v is cited", step.draft, c)
					}
				}
			}

			want(t, call(t, f, key, http.MethodPut, base+"/draft", map[string]any{"rules": sourceTextRules}), http.StatusOK)
			r = call(t, f, key, http.MethodGet, path, nil)
			want(t, r, http.StatusOK)
			got := obj(t, r.Body)
			if got["source_id"] != srcID || got["title"] != "Grant Act" || got["media_type"] != tc.mediaType || got["status"] != "active" || got["draft"] != "compiled" {
				t.Fatalf("the source: %s", r.Raw)
			}
			if !reflect.DeepEqual(got["coverage"], map[string]any{"clauses": 2.0, "cited_clauses": 1.0, "share": 0.5}) {
				t.Errorf("coverage %v, want 1 of 2 clauses", got["coverage"])
			}
			if !reflect.DeepEqual(got["unplaced_quotes"], unplaced) {
				t.Errorf("unplaced_quotes %v, want %v", got["unplaced_quotes"], unplaced)
			}
			pages := list(t, got["pages"])
			if len(pages) != tc.pages {
				t.Fatalf("%d pages, want %d: %s", len(pages), tc.pages, r.Raw)
			}
			var texts []string
			for i, p := range pages {
				p := obj(t, p)
				if p["page"] != float64(i+1) {
					t.Errorf("page %d is numbered %v", i+1, p["page"])
				}
				texts = append(texts, p["text"].(string))
			}
			clauses := list(t, got["clauses"])
			if len(clauses) != len(tc.clauses) {
				t.Fatalf("%d clauses, want %d: %v", len(clauses), len(tc.clauses), clauses)
			}
			for i, w := range tc.clauses {
				c := obj(t, clauses[i])
				page, start, end := int(c["page"].(float64)), int(c["start"].(float64)), int(c["end"].(float64))
				if c["number"] != float64(i+1) || c["text"] != w.text || page != w.page || c["counted"] != w.counted {
					t.Errorf("clause %d: %v, want %q on page %d, counted %v", i+1, c, w.text, w.page, w.counted)
					continue
				}
				if texts[page-1][start:end] != w.text {
					t.Errorf("clause %d: page %d [%d:%d] is %q, want %q", i+1, page, start, end, texts[page-1][start:end], w.text)
				}
				citedBy := w.citedBy
				if citedBy == nil {
					citedBy = []any{}
				}
				if !reflect.DeepEqual(c["cited_by"], citedBy) {
					t.Errorf("clause %d (%q): cited_by %v, want %v", i+1, w.text, c["cited_by"], citedBy)
				}
			}
		})
	}
}

// get-project-source-text is 404 in the other source routes' shape for a
// source that is not the project's, whoever asks, and for another
// tenant's project.
func TestSourceTextNotFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	h := newGrantProject(t, f, key)
	other := tenantKey(t, f, "globex", allProjectScopes...)
	for _, tc := range []struct {
		name, key, path string
	}{
		{"another tenant's project", other, g.base + "/sources/" + g.sourceID + "/text"},
		{"an unknown source", key, g.base + "/sources/src_AAAAAAAAAAAAAAAA/text"},
		{"a malformed source id", key, g.base + "/sources/nonsense/text"},
		{"another project's source", key, g.base + "/sources/" + h.sourceID + "/text"},
		{"an unknown project", key, "/projects/prj_AAAAAAAAAAAAAAAA/sources/" + g.sourceID + "/text"},
	} {
		r := call(t, f, tc.key, http.MethodGet, tc.path, nil)
		raw := call(t, f, tc.key, http.MethodGet, strings.TrimSuffix(tc.path, "/text")+"/raw", nil)
		if r.Status != http.StatusNotFound || raw.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s (raw %d)", tc.name, r.Status, r.Raw, raw.Status)
			continue
		}
		if !reflect.DeepEqual(r.Body, raw.Body) {
			t.Errorf("%s: %s, want the shape of .../raw's %s", tc.name, r.Raw, raw.Raw)
		}
	}
}
