package engine

import (
	"fmt"
	"sort"

	"github.com/eligo/eligo/engine/value"
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
			problems = append(problems, fmt.Sprintf("the periods of %s (%s) and %s (%s) overlap: on %s both would hold", prev.Name, prev.Period, next.Name, next.Period, value.FormatDate(next.Period.From)))
		case next.Period.From > prev.Period.Until+1:
			problems = append(problems, fmt.Sprintf("no ruleset holds from %s to %s, between %s (%s) and %s (%s)", value.FormatDate(prev.Period.Until+1), value.FormatDate(next.Period.From-1), prev.Name, prev.Period, next.Name, next.Period))
		}
	}
	return problems
}

// Codes of the notices StalePeriod gives; the publish answer and the
// review's effective_period check carry them.
const (
	// PeriodEnded: the period ended before today.
	PeriodEnded = "period_ended"
	// PeriodBeforeLive: the period ended before the period of the cut
	// live under the slug began.
	PeriodBeforeLive = "period_before_live"
)

// PeriodNotice is one reason a ruleset about to be published holds for no
// date anyone is likely to decide on: a Code (PeriodEnded,
// PeriodBeforeLive) and a sentence naming the dates.
type PeriodNotice struct {
	// Code names the notice for callers that branch on it.
	Code string `json:"code" enum:"period_ended,period_before_live" doc:"period_ended: the rules' period ended before today; period_before_live: it ended before the period of the version live under the slug began."`
	// Message says it for people.
	Message string `json:"message"`
}

// StalePeriod says what is out of date about period p (nil: no period, so
// nothing) as of the ordinal day today: a period that ended before today,
// whose every decision from today on is undetermined; and one that ended
// before live (the period of the cut the slug points at, named liveName;
// nil when there is none or it declares no period) began, so that
// publishing it would move the slug back to older law. Publishing such
// rules is allowed (a correction of past law is legitimate), so these are
// warnings, never refusals.
func StalePeriod(p *Period, today int64, live *Period, liveName string) []PeriodNotice {
	if p == nil || p.Until == 0 {
		return nil
	}
	var out []PeriodNotice
	if p.Until < today {
		out = append(out, PeriodNotice{Code: PeriodEnded, Message: fmt.Sprintf(
			"the rules' effective period (%s) ended before today, %s: every decision dated from today on is undetermined, outside the period",
			p, value.FormatDate(today))})
	}
	if live != nil && p.Until < live.From {
		out = append(out, PeriodNotice{Code: PeriodBeforeLive, Message: fmt.Sprintf(
			"the rules' effective period (%s) ends before the period of %s, live under the slug (%s), begins: the slug would move from it to older law",
			p, liveName, live)})
	}
	return out
}
