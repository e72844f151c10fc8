package authoring

import (
	"strings"
	"testing"
	"unicode/utf8"
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
