package routes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock/clocktest"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
)

// demoFamily is the cuts of one casebank ruleset published under one slug,
// as `make run` seeds them: the folders whose rules declare the same
// `ruleset` header, in the order of their periods.
type demoFamily struct {
	slug string
	cuts []demoCut
}

// demoCut is one published cut and the period it holds for (nil: always).
type demoCut struct {
	rulesetID string
	period    *engine.Period
}

// inForce returns the cut that decides day: the newest whose period covers
// it, as the catalog resolves a slug; ok is false when none does.
func (f demoFamily) inForce(day int64) (demoCut, bool) {
	for _, c := range slices.Backward(f.cuts) {
		if c.period == nil || c.period.Covers(day) {
			return c, true
		}
	}
	return demoCut{}, false
}

// TestTodayIsTheClocksDay seeds every casebank ruleset as the demo does and
// turns the server's clock to each day where an answer could change: the
// first and last day of every period, the day after each ends, today and
// two years ahead. On each, a /decide that names no decision date must be
// decided as of the clock's day, by the cut in force on it, exactly as one
// naming that day; and where no cut's period covers the day (the newest
// period has ended) it must say so: undetermined, with the
// outside_effective_period warning, as docs/api.md#law-over-time-effective-periods-and-decision_date says.
func TestTodayIsTheClocksDay(t *testing.T) {
	t.Parallel()
	today := time.Now().UTC()
	dial := clocktest.NewDial(today)
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering(), Clock: dial})
	key := f.Key(t, "demo", auth.AllScopes, time.Time{})
	families := seedDemo(t, f)

	days := map[int64]bool{value.DateOf(today): true, value.DateOf(today.AddDate(2, 0, 0)): true}
	for _, fam := range families {
		for _, c := range fam.cuts {
			if p := c.period; p != nil {
				days[p.From] = true
				if p.Until != 0 {
					days[p.Until], days[p.Until+1] = true, true
				}
			}
		}
	}
	sorted := slices.Sorted(func(yield func(int64) bool) {
		for d := range days {
			if !yield(d) {
				return
			}
		}
	})
	ended := 0
	for _, day := range sorted {
		date := value.FormatDate(day)
		at, err := time.Parse(time.DateOnly, date)
		if err != nil {
			t.Fatal(err)
		}
		dial.Set(at)
		for _, fam := range families {
			implicit := decideOn(t, f, key, fam.slug, "")
			explicit := decideOn(t, f, key, fam.slug, date)
			what := fmt.Sprintf("%s as of %s", fam.slug, date)
			if implicit.DecisionDate != "" && implicit.DecisionDate != date {
				t.Errorf("%s: decided as of %s, not the clock's day", what, implicit.DecisionDate)
			}
			if implicit.Decision != explicit.Decision || implicit.RulesetID != explicit.RulesetID || !slices.Equal(implicit.warningCodes(), explicit.warningCodes()) {
				t.Errorf("%s: with no date %s by %s %v; naming the day %s by %s %v", what,
					implicit.Decision, implicit.RulesetID, implicit.warningCodes(), explicit.Decision, explicit.RulesetID, explicit.warningCodes())
			}
			cut, ok := fam.inForce(day)
			outside := slices.Contains(implicit.warningCodes(), "outside_effective_period")
			switch {
			case ok && implicit.RulesetID != cut.rulesetID:
				t.Errorf("%s: decided by %s, want the cut in force %s", what, implicit.RulesetID, cut.rulesetID)
			case ok && outside:
				t.Errorf("%s: warned outside the period though %s holds", what, cut.rulesetID)
			case !ok && (!outside || implicit.Decision != "undetermined"):
				t.Errorf("%s: no period covers the day, yet the answer is %s with warnings %v", what, implicit.Decision, implicit.warningCodes())
			case !ok:
				ended++
			}
		}
	}
	if ended == 0 {
		t.Error("no day fell outside every period of a family: the test no longer exercises an ended period")
	}
}

// demoAnswer is the part of a /decide answer the calendar can change.
type demoAnswer struct {
	Decision     string `json:"decision"`
	RulesetID    string `json:"ruleset_id"`
	DecisionDate string `json:"decision_date"`
	Warnings     []struct {
		Code string `json:"code"`
	} `json:"warnings"`
}

// warningCodes lists the answer's warning codes in order.
// plan_unavailable is left out: whether the planner finished within its
// time budget depends on the machine's load, not on the day, so two calls
// on a busy machine may differ in it alone.
func (a demoAnswer) warningCodes() []string {
	codes := []string{}
	for _, w := range a.Warnings {
		if w.Code != "plan_unavailable" {
			codes = append(codes, w.Code)
		}
	}
	return codes
}

// decideOn decides slug with no answers, as of date ("" names none).
func decideOn(t *testing.T, f *apitest.Fixture, key, slug, date string) demoAnswer {
	t.Helper()
	body := map[string]any{"ruleset_id": slug, "field_values": map[string]any{}}
	if date != "" {
		body["decision_date"] = date
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Decide(t, key, string(raw))
	if r.Status != 200 {
		t.Fatalf("decide %s as of %q: %d %.300s", slug, date, r.Status, r.Raw)
	}
	var a demoAnswer
	if err := json.Unmarshal([]byte(r.Raw), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// seedDemo publishes every casebank ruleset folder as the demo does
// (scripts/run.sh): one public slug per `ruleset` header, its periods
// published earliest first.
func seedDemo(t *testing.T, f *apitest.Fixture) []demoFamily {
	t.Helper()
	dirs, err := folder.Discover(filepath.Join("..", "..", "casebank"))
	if err != nil {
		t.Fatal(err)
	}
	type member struct {
		name, header string
		period       *engine.Period
	}
	byHeader := map[string][]member{}
	var order []string
	for _, dir := range dirs {
		name := filepath.Base(dir)
		src, err := os.ReadFile(filepath.Join(dir, name+".rules"))
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := engine.Compile(name+".rules", src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		header := r.Slug
		if header == "" {
			header = name
		}
		if _, seen := byHeader[header]; !seen {
			order = append(order, header)
		}
		byHeader[header] = append(byHeader[header], member{name: name, header: header, period: r.Effective})
	}
	var families []demoFamily
	for _, header := range order {
		folders := byHeader[header]
		slices.SortStableFunc(folders, func(a, b member) int {
			return int(periodStart(a.period) - periodStart(b.period))
		})
		fam := demoFamily{slug: "demo/" + folders[0].name}
		for _, fo := range folders {
			res, _ := f.PublishCasebank(t, "demo", fo.name, fam.slug, true)
			fam.cuts = append(fam.cuts, demoCut{rulesetID: res.RulesetID, period: fo.period})
		}
		families = append(families, fam)
	}
	if len(families) < 20 {
		t.Fatalf("seeded %d families: the casebank was not found", len(families))
	}
	return families
}

// periodStart orders cuts: one that always holds first.
func periodStart(p *engine.Period) int64 {
	if p == nil {
		return 0
	}
	return p.From
}
