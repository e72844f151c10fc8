package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/rulebook"
)

// TestRulebookContentWithoutFacts: releases are immutable, so content
// without section facts is stored byte for byte as before facts existed
// (no section_facts member), a stored release without the member reads
// back with none, and content with facts keeps them.
func TestRulebookContentWithoutFacts(t *testing.T) {
	t.Parallel()
	old := `{"name":"B","slug":"acme/b","description":"","outcome_logic":null,"sections":[],"field_overlay":null,"robot_hints":null}`
	var c RulebookContent
	if err := json.Unmarshal([]byte(old), &c); err != nil {
		t.Fatal(err)
	}
	if c.SectionFacts != nil {
		t.Fatalf("facts from a release without them: %v", c.SectionFacts)
	}
	again, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != old {
		t.Fatalf("stored as\n%s\nnot as before\n%s", again, old)
	}
	c.SectionFacts = []rulebook.SectionFact{{Field: "income.snap", Section: "A"}}
	with, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(with), `"section_facts":[{"field":"income.snap","section":"A"}]}`) {
		t.Fatalf("facts stored as %s", with)
	}
}
