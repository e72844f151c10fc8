package rulebook

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// TestComposedPeriod: a composition holds on the days every section
// holds, is undetermined with the sections' warning elsewhere, and
// refuses sections that never hold together.
func TestComposedPeriod(t *testing.T) {
	t.Parallel()
	day := func(s string) int64 {
		d, ok := value.ParseDate(s)
		if !ok {
			t.Fatalf("bad date %s", s)
		}
		return d
	}
	// timeless declares no period: it holds for every date.
	timeless := tinyRules(t, "timeless", "a.x >= 1", "a.x int")
	tests := []struct {
		name       string
		sections   []Section
		from, till string // "" for no period; till "" for open-ended
	}{
		// 2009-09-20 onwards, 2016-04-05 until 2044-05-05, 2025-01-15
		// until 2026-01-12: the latest start and the earliest end.
		{"three dated", casebankSections(t, sharedFolders...), "2025-01-15", "2026-01-12"},
		// Open-ended periods only: the latest start, still open.
		{"open-ended", casebankSections(t, threeFolders...), "2013-03-08", ""},
		// A section without a period does not narrow it.
		{"one timeless", []Section{sectionOf(0, timeless), sectionOf(1, casebank(t, "snap-income"))}, "2025-10-01", "2026-09-30"},
		{"timeless only", []Section{sectionOf(0, timeless)}, "", ""},
	}
	for _, tt := range tests {
		c := mustCompose(t, Spec{Name: "x", Sections: tt.sections})
		got := c.Rules.Effective
		switch {
		case tt.from == "" && got != nil:
			t.Errorf("%s: period %s, want none", tt.name, got)
		case tt.from == "":
		case got == nil:
			t.Errorf("%s: no period, want from %s", tt.name, tt.from)
		default:
			want := engine.Period{From: day(tt.from)}
			if tt.till != "" {
				want.Until = day(tt.till)
			}
			if *got != want {
				t.Errorf("%s: period %s, want %s", tt.name, got, want)
			}
		}
	}

	// FY2026 SNAP (until 2026-09-30) and 2023-24 student aid (until
	// 2024-06-30) never hold on the same day.
	_, err := Compose(Spec{Name: "x", Sections: casebankSections(t, "snap-income", "us-independent-student")})
	if err == nil || !strings.Contains(err.Error(), "share no day") ||
		!strings.Contains(err.Error(), "2023-07-01 until 2024-06-30") || !strings.Contains(err.Error(), "2025-10-01 until 2026-09-30") {
		t.Errorf("disjoint sections: %v", err)
	}

	// SNAP FY2026 or student aid 2026-27, decided on 15 October 2026: the
	// student section alone is in force, and is eligible; SNAP's period
	// has ended, so its section and the rulebook are undetermined, though
	// an or of the sections in force would read eligible.
	c := mustCompose(t, Spec{Name: "x", Sections: casebankSections(t, "snap-income", "us-independent-student-2026-27"),
		Outcome: mustTree(t, `{"op":"or","args":[{"section":"A"},{"section":"B"}]}`, 2)})
	answers := map[string]any{
		"household.region": "contiguous_us_guam_vi", "household.size": 1, "household.elderly_or_disabled_member": false,
		"income.gross_monthly": 1000, "income.net_monthly": 800,
		"student.date_of_birth": "1990-01-01", "student.marital_status": "single", "student.graduate_or_professional": false,
		"student.military_status": "none", "student.has_legal_dependents": false, "student.orphan_foster_or_ward_since_13": false,
		"student.emancipated_or_guardianship": false, "student.verified_homeless_youth": false,
		"student.unusual_circumstances_documented": false,
	}
	for _, tt := range []struct {
		date          string
		outcome       engine.Outcome
		snap, student engine.Outcome
		warns         bool
	}{
		{"2026-10-15", engine.Undetermined, engine.Undetermined, engine.Eligible, true},
		{"2026-09-30", engine.Eligible, engine.Eligible, engine.Eligible, false},
		{"2026-06-30", engine.Undetermined, engine.Eligible, engine.Undetermined, true},
	} {
		d := day(tt.date)
		res := c.Rules.Evaluate(c.Rules.ConvertMap(answers), engine.Options{DecisionDate: d})
		if res.Outcome != tt.outcome || res.OutsidePeriod != tt.warns {
			t.Errorf("%s: outcome %s (outside %v), want %s (%v)", tt.date, res.Outcome, res.OutsidePeriod, tt.outcome, tt.warns)
		}
		sr := c.SectionResults(res)
		if sr[0].Decision != tt.snap || sr[1].Decision != tt.student {
			t.Errorf("%s: sections %s and %s, want %s and %s", tt.date, sr[0].Decision, sr[1].Decision, tt.snap, tt.student)
		}
		if w := c.Rules.PeriodWarning(d); tt.warns && !strings.Contains(w, "2026-07-01 until 2026-09-30") {
			t.Errorf("%s: warning %q does not name the common period", tt.date, w)
		}
	}
}
