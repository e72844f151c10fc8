package rulebook

import (
	"strings"
	"testing"
)

// TestSuggestSection checks the "did you mean" of an outcome leaf that
// is not a section letter: proposed among the rulebook's own letters only,
// and only when one is close.
func TestSuggestSection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		section string
		letters int
		want    string // the message's ending
	}{
		{"a", 3, `and so on; did you mean "A"?`},
		{"c", 3, `and so on; did you mean "C"?`},
		{"d", 3, "and so on"},                     // D is not a section of this rulebook
		{"AB", 3, `and so on; did you mean "A"?`}, // a letter too many: the first of a tie
		{"", 3, "and so on"},                      // nothing to compare
		{"a", 0, "and so on"},                     // no sections to propose
		{"§A", 3, "and so on"},                    // not a slip of a letter
		{"Z", 3, "this rulebook has 3 sections, A to C"},
	} {
		_, problems := ParseOutcomeTree([]byte(`{"section":"`+tc.section+`"}`), tc.letters)
		if len(problems) != 1 || !strings.HasSuffix(problems[0].Msg, tc.want) {
			t.Errorf("section %q of %d: problems %v, want one ending %q", tc.section, tc.letters, problems, tc.want)
		}
	}
}

// TestSuggestOverlayField checks the "did you mean" of a field vocabulary
// overlay naming a field no section declares: proposed among the fields of
// the rulebook's sections, and only when one is close.
func TestSuggestOverlayField(t *testing.T) {
	t.Parallel()
	sections := casebankSections(t, threeFolders...)
	for _, tc := range []struct {
		field, want string
	}{
		{"person.date_of_brth", "which no section declares (did you mean person.date_of_birth?)"},
		{"Residence.Total_Years", "which no section declares (did you mean residence.total_years?)"},
		{"person.age", "which no section declares"}, // person.date_of_birth is another name of the group
	} {
		_, err := Compose(Spec{Name: "x", Sections: sections, Overlay: map[string]FieldOverlay{tc.field: {Question: ptr("?")}}})
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("overlay of %s: %v, want an error ending %q", tc.field, err, tc.want)
		}
	}
}
