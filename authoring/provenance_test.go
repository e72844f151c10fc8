package authoring

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// A url reference must be one anybody can open.
func TestPrivateURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url     string
		private bool
	}{
		{"https://www.legislation.gov.uk/ukpga/1992/4/section/141", false},
		{"http://laws.example.org/grant", false},
		{"https://203.0.113.9/act", false},
		{"http://localhost:8080/act", true},
		{"http://intranet/act", true},
		{"https://wiki.corp.internal/act", true},
		{"http://printer.local/act", true},
		{"http://10.1.2.3/act", true},
		{"http://192.168.0.4/act", true},
		{"http://127.0.0.1/act", true},
		{"http://[::1]/act", true},
		{"http://169.254.1.1/act", true},
		{"https://user:pass@laws.example.org/act", true},
		{"ftp://laws.example.org/act", true},
		{"/relative/act", true},
	} {
		if got := privateURL(tc.url) != ""; got != tc.private {
			t.Errorf("privateURL(%q) = %q, want private %v", tc.url, privateURL(tc.url), tc.private)
		}
	}
}

// A draft may name an artefact by its source id or its full locator.
func TestArtefactSourceID(t *testing.T) {
	t.Parallel()
	for loc, want := range map[string]string{
		"src_AAAAAAAAAAAAAAAA": "src_AAAAAAAAAAAAAAAA",
		ArtefactLocator("prj_BBBBBBBBBBBBBBBB", "src_AAAAAAAAAAAAAAAA"): "src_AAAAAAAAAAAAAAAA",
		ArtefactLocator("prj_CCCCCCCCCCCCCCCC", "src_AAAAAAAAAAAAAAAA"): "",
		"https://example.org/file":                                      "",
	} {
		if got := artefactSourceID("prj_BBBBBBBBBBBBBBBB", loc); got != want {
			t.Errorf("artefactSourceID(%q) = %q, want %q", loc, got, want)
		}
	}
}

// Uncited passages are cut on a rune boundary, white space collapsed.
func TestPassage(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("§ Ämter  und\tBehörden ", 40)
	p := passage(long)
	if !utf8.ValidString(p) || len(p) > MaxPassageLength+len("…") || !strings.HasSuffix(p, "…") || strings.Contains(p, "  ") {
		t.Fatalf("passage: %q", p)
	}
	if got := passage(" short\n text "); got != "short text" {
		t.Fatalf("short passage: %q", got)
	}
}

// A reference problem names the uploaded source as the team knows it (its
// title and file), after the id the rules cite it by, never by the
// project's own source id.
func TestBindProblemsNameTheSourceForPeople(t *testing.T) {
	t.Parallel()
	rules, _, err := engine.Compile("draft.rules", []byte(grantDraft(1)))
	if err != nil {
		t.Fatal(err)
	}
	const id = "src_RbCTDcmET8kos6th"
	for _, tc := range []struct {
		name    string
		src     store.ProjectSource
		targets map[string]SourceTarget
		want    string
	}{
		{"another licence", store.ProjectSource{ID: id, Filename: "act.txt", Title: "The Act", URL: "https://example.org/act", Licence: "CC-BY-4.0"}, nil,
			`source act: the draft declares the licence "public-domain" but "The Act" (act.txt) was uploaded under "CC-BY-4.0"`},
		{"no title", store.ProjectSource{ID: id, Filename: "act.txt", URL: "https://example.org/act", Licence: "CC-BY-4.0"}, nil,
			`source act: the draft declares the licence "public-domain" but act.txt was uploaded under "CC-BY-4.0"`},
		{"no url", store.ProjectSource{ID: id, Filename: "act.txt", Title: "The Act"}, map[string]SourceTarget{"act": {SourceID: id, TargetKind: TargetURL}},
			`source act: "The Act" (act.txt) has no url, so it cannot be cited by url; upload it with its public url or cite it as an artefact`},
		{"another url", store.ProjectSource{ID: id, Filename: "act.txt", Title: "The Act", URL: "https://example.org/other"}, map[string]SourceTarget{"act": {SourceID: id, TargetKind: TargetURL}},
			`source act: the draft declares the url "https://example.org/act" but "The Act" (act.txt) was uploaded from "https://example.org/other"`},
	} {
		_, problems := bind("p1", rules, []store.ProjectSource{tc.src}, tc.targets)
		if !slices.Contains(problems, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.name, problems, tc.want)
		}
		for _, p := range problems {
			if strings.Contains(p, id) {
				t.Errorf("%s: %q names the project's source id", tc.name, p)
			}
		}
	}
}
