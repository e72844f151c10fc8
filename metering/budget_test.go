package metering

import (
	"strings"
	"testing"
)

func TestDefaultBudgetsFollowTheSpec(t *testing.T) {
	t.Parallel()
	b := DefaultBudgets()
	cases := []struct {
		tier  string
		class Class
		want  int64
	}{
		{Anonymous, ClassDecide, 250},
		{Anonymous, ClassRulesets, 500},
		{"free", ClassDecide, 500}, {"free", ClassRulesets, 500}, {"free", ClassProjects, 500},
		{"starter", ClassDecide, 10_000}, {"starter", ClassRulesets, 500}, {"starter", ClassProjects, 100},
		{"pro", ClassDecide, 100_000}, {"pro", ClassRulesets, 5_000}, {"pro", ClassProjects, 500},
	}
	for _, c := range cases {
		if got := b.Limit(c.tier, c.class); got != c.want {
			t.Errorf("%s %s: %d, want %d", c.tier, c.class, got, c.want)
		}
	}
	for _, tier := range Tiers() {
		if b[tier] == nil {
			t.Errorf("tier %s has no budgets", tier)
		}
	}
}

func TestBudgetOverride(t *testing.T) {
	t.Parallel()
	base := DefaultBudgets()
	got, err := base.Override(" anonymous.decide=500, pro.generate = 7 ,")
	if err != nil {
		t.Fatal(err)
	}
	if got.Limit(Anonymous, ClassDecide) != 500 || got.Limit("pro", ClassGenerate) != 7 {
		t.Fatalf("overrides not applied: %v", got)
	}
	if got.Limit("free", ClassDecide) != 500 {
		t.Fatalf("an untouched budget changed: %d", got.Limit("free", ClassDecide))
	}
	if base.Limit(Anonymous, ClassDecide) != 250 {
		t.Fatal("Override changed the table it was called on")
	}
	for spec, wantErr := range map[string]string{
		"gold.decide=1":    "unknown tier",
		"free.decisions=1": "unknown class",
		"free.decide=-1":   "at least 0",
		"free.decide=lots": "at least 0",
		"free.decide":      "tier.class=budget",
		"free=3":           "tier.class=budget",
		"free.unmetered=3": "unknown class",
	} {
		if _, err := base.Override(spec); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want one mentioning %q", spec, err, wantErr)
		}
	}
}

func TestClassTable(t *testing.T) {
	t.Parallel()
	if len(Classes) != 6 {
		t.Fatalf("%d classes, docs/metering.md lists six", len(Classes))
	}
	for _, c := range Classes {
		if c.Class.Enforced() != (c.Class != ClassGenerate) {
			t.Errorf("%s: enforced=%v; only generate is report-only", c.Class, c.Class.Enforced())
		}
	}
	if Unmetered.Known() || Unmetered.Enforced() {
		t.Error("Unmetered must not be a class")
	}
}
