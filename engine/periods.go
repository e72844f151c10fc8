package engine

import (
	"fmt"
	"sort"
)

// PeriodEntry is one ruleset published under a slug, for CheckPeriods.
type PeriodEntry struct {
	// Name identifies the ruleset in messages, e.g. its file.
	Name string
	// Period is its effective period; nil when it declares none (it then
	// holds for every date).
	Period *Period
}

// CheckPeriods finds what is wrong with the effective periods of rulesets
// that share one slug, so that the slug resolves to exactly one of them on
// any date from the first period on: two periods that overlap (an
// open-ended period overlaps every later one), a gap of days between
// consecutive periods that no ruleset covers, and a ruleset without a
// period beside others (it holds for every date, so it overlaps them all).
// Each problem is one sentence naming the rulesets and the dates; none
// for fewer than two rulesets.
func CheckPeriods(entries []PeriodEntry) []string {
	if len(entries) < 2 {
		return nil
	}
	var problems []string
	dated := make([]PeriodEntry, 0, len(entries))
	for _, e := range entries {
		if e.Period == nil {
			problems = append(problems, fmt.Sprintf("%s declares no effective period, so it holds for every date beside the other rulesets under the slug; give it one", e.Name))
			continue
		}
		dated = append(dated, e)
	}
	sort.SliceStable(dated, func(i, j int) bool { return dated[i].Period.From < dated[j].Period.From })
	for i := 1; i < len(dated); i++ {
		prev, next := dated[i-1], dated[i]
		switch {
		case prev.Period.Until == 0 || next.Period.From <= prev.Period.Until:
			problems = append(problems, fmt.Sprintf("the periods of %s (%s) and %s (%s) overlap: on %s both would hold", prev.Name, prev.Period, next.Name, next.Period, FormatDate(next.Period.From)))
		case next.Period.From > prev.Period.Until+1:
			problems = append(problems, fmt.Sprintf("no ruleset holds from %s to %s, between %s (%s) and %s (%s)", FormatDate(prev.Period.Until+1), FormatDate(next.Period.From-1), prev.Name, prev.Period, next.Name, next.Period))
		}
	}
	return problems
}
