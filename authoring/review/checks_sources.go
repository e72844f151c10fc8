package review

// This file holds the checks about the law behind the draft: citations,
// clause coverage, source status and open questions, and the solver's
// presence-polarity check.

import (
	"context"
	"fmt"
	"strings"

	"github.com/eligo/eligo/solver"
)

// Source statuses, as the project's sources carry them.
const (
	sourceActive     = "active"
	sourceSuperseded = "superseded"
)

// Clause coverage thresholds: the share of active clauses cited at or
// above which clause_coverage passes, and at or above which it warns. Most
// statutes carry definitions and procedure a ruleset need not cite, so a
// pass asks for a clear majority rather than everything.
const (
	coveragePass = 0.6
	coverageWarn = 0.3
)

// maxUncited is how many uncited passages clause_coverage shows per source.
const maxUncited = 5

// sourceName names a project source in evidence: its file name, else its id.
func sourceName(in *Input, id string) string {
	for _, s := range in.Sources {
		if s.ID == id && s.Filename != "" {
			return s.Filename
		}
	}
	return id
}

// criteriaCited checks that every criterion has a verified quote and lists
// every quote that did not verify.
func criteriaCited(_ context.Context, in *Input) (outcome, error) {
	r := in.Rules
	verified := map[string]int{}
	var unverified []string
	for _, c := range in.Citations {
		switch {
		case c.Verified:
			verified[c.Citer]++
		case c.ProjectSourceID == "":
			unverified = append(unverified, fmt.Sprintf("%s: quote %q cites source %s, which matches no project source", c.Citer, clip(c.Quote), c.SourceID))
		case c.Nearest != "":
			unverified = append(unverified, fmt.Sprintf("%s: quote %q not found in %s; nearest passage: %q", c.Citer, clip(c.Quote), sourceName(in, c.ProjectSourceID), clip(c.Nearest)))
		default:
			unverified = append(unverified, fmt.Sprintf("%s: quote %q not found in %s", c.Citer, clip(c.Quote), sourceName(in, c.ProjectSourceID)))
		}
	}
	var uncited []string
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		if verified["criterion "+c.ID] == 0 {
			uncited = append(uncited, c.ID)
		}
	}
	var ev []string
	for _, id := range uncited {
		ev = append(ev, fmt.Sprintf("criterion %s: no verified quote", id))
	}
	ev = append(ev, unverified...)
	n := r.NumCriteria()
	switch {
	case len(uncited) > 0:
		return outcome{status: StatusFail, evidence: ev,
			advice: fmt.Sprintf("Give criterion %s a quote that appears word for word in an active source (%d of %d %s have none): upload the source it rests on, or refine the draft to quote it exactly.",
				uncited[0], len(uncited), n, plural(n, "criterion", "criteria"))}, nil
	case len(unverified) > 0:
		return outcome{status: StatusWarn, evidence: ev,
			advice: fmt.Sprintf("Correct or remove the %d %s not found in the sources, starting with %s.", len(unverified), plural(len(unverified), "quote"), unverified[0])}, nil
	}
	return outcome{status: StatusPass, evidence: []string{fmt.Sprintf("all %d %s rest on verified quotes", n, plural(n, "criterion", "criteria"))},
		strength: fmt.Sprintf("Every criterion rests on a quote verified in the sources (%d %s).", len(in.Citations), plural(len(in.Citations), "quote"))}, nil
}

// clauseCoverage measures the share of the active sources' clauses that
// some verified quote covers.
func clauseCoverage(_ context.Context, in *Input) (outcome, error) {
	var ev, skipped []string
	total, covered := 0, 0
	for _, s := range in.Sources {
		name := s.Filename
		if name == "" {
			name = s.ID
		}
		if s.Status != sourceActive {
			skipped = append(skipped, fmt.Sprintf("%s: %s, not counted", name, s.Status))
			continue
		}
		total += s.Clauses
		covered += s.CoveredClauses
		ev = append(ev, fmt.Sprintf("%s: %d of %d %s cited", name, s.CoveredClauses, s.Clauses, plural(s.Clauses, "clause")))
		for i, u := range s.Uncited {
			if i == maxUncited {
				ev = append(ev, fmt.Sprintf("%s: %d more uncited %s", name, len(s.Uncited)-maxUncited, plural(len(s.Uncited)-maxUncited, "clause")))
				break
			}
			ev = append(ev, fmt.Sprintf("%s: uncited %q", name, clip(u)))
		}
	}
	ev = append(ev, skipped...)
	if total == 0 {
		if len(ev) == 0 {
			ev = []string{"the project has no sources"}
		}
		return outcome{status: StatusNA, evidence: append([]string{"no active source has clauses to cover"}, ev...)}, nil
	}
	share := float64(covered) / float64(total)
	pct := int(share*100 + 0.5)
	summary := fmt.Sprintf("%d of %d active clauses cited (%d%%; pass at %d%%, warn at %d%%)", covered, total, pct, int(coveragePass*100), int(coverageWarn*100))
	o := outcome{evidence: append([]string{summary}, ev...)}
	switch {
	case share >= coveragePass:
		o.status = StatusPass
		o.strength = fmt.Sprintf("The draft cites %d%% of the active sources' clauses.", pct)
	case share >= coverageWarn:
		o.status = StatusWarn
	default:
		o.status = StatusFail
	}
	if o.status != StatusPass {
		o.advice = fmt.Sprintf("Only %d of %d active clauses are cited (%d%%): check each uncited clause listed for a condition the rules miss, add a criterion citing it to the draft, or mark a source that holds no conditions “Reference only” on the Sources screen (status reference_only through the API).",
			covered, total, pct)
	}
	return o, nil
}

// presencePolarity runs the solver's go-live gate on the draft. A gate
// that runs out of its share of the budget, or that the solver cannot
// decide, is unfinished (na), never a pass.
func presencePolarity(ctx context.Context, in *Input) (outcome, error) {
	findings, err := solver.CheckPresencePolarityWith(ctx, in.Rules, solver.PolarityOptions{Gate: in.gate})
	if err != nil {
		return unfinished(solverStopped(ctx, "the presence-polarity check", err)), nil
	}
	if len(findings) == 0 {
		return outcome{status: StatusPass, evidence: []string{"no presence operator lets an unanswered field look better than an answer"},
			strength: "Leaving a field unanswered never makes an applicant look more eligible than answering it."}, nil
	}
	var ev []string
	for _, f := range findings {
		subject, unanswered, answered := "the outcome", "eligible", "not_eligible"
		if f.Criterion != "" {
			subject, unanswered, answered = "criterion "+f.Criterion, "satisfied", "not_satisfied"
		}
		var given []string
		for _, a := range f.Witness.OtherAnswers {
			given = append(given, fmt.Sprintf("%s = %s", a.Field, a.Value))
		}
		if f.Witness.DecisionDate != "" {
			given = append(given, "decision date "+f.Witness.DecisionDate)
		}
		with := ""
		if len(given) > 0 {
			with = " (with " + strings.Join(given, ", ") + ")"
		}
		ev = append(ev, fmt.Sprintf("field %s, %s: unanswered gives %s, answering %s gives %s%s",
			f.Field, subject, unanswered, f.Witness.Value, answered, with))
	}
	f := findings[0]
	where := "the outcome"
	if f.Criterion != "" {
		where = "criterion " + f.Criterion
	}
	return outcome{status: StatusFail, evidence: ev,
		advice: fmt.Sprintf("In %s, require an answer to %s (present(%s) and ...) or default it with ?? to the value least favourable to the applicant; go-live refuses the draft as it stands.",
			where, f.Field, f.Field)}, nil
}

// supersededSources lists the citations that resolve to a source whose
// status is not active.
func supersededSources(_ context.Context, in *Input) (outcome, error) {
	byID := map[string]*Source{}
	for i := range in.Sources {
		byID[in.Sources[i].ID] = &in.Sources[i]
	}
	seen := map[string]bool{}
	var ev []string
	resolved := 0
	for _, c := range in.Citations {
		s := byID[c.ProjectSourceID]
		if s == nil {
			continue
		}
		resolved++
		key := c.Citer + "\x00" + s.ID
		if s.Status == sourceActive || seen[key] {
			continue
		}
		seen[key] = true
		name := sourceName(in, s.ID)
		switch {
		case s.Status == sourceSuperseded && s.SupersededBy != "":
			ev = append(ev, fmt.Sprintf("%s cites %s, superseded by %s", c.Citer, name, sourceName(in, s.SupersededBy)))
		case s.Status == sourceSuperseded:
			ev = append(ev, fmt.Sprintf("%s cites %s, which is superseded (no replacement named)", c.Citer, name))
		default:
			ev = append(ev, fmt.Sprintf("%s cites %s, which is %s", c.Citer, name, s.Status))
		}
	}
	if len(ev) == 0 {
		return outcome{status: StatusPass, evidence: []string{fmt.Sprintf("all %d resolved %s rest on active sources", resolved, plural(resolved, "citation"))},
			strength: "Every resolved citation rests on an active source."}, nil
	}
	return outcome{status: StatusWarn, evidence: ev,
		advice: fmt.Sprintf("Re-cite from the active sources (%s): rewrite the draft so that it quotes the law in force.", ev[0])}, nil
}

// sourceQuestions lists the open source questions with their quotes.
func sourceQuestions(_ context.Context, in *Input) (outcome, error) {
	var ev []string
	first := ""
	for _, q := range in.Questions {
		if q.Resolved {
			continue
		}
		ev = append(ev, fmt.Sprintf("question %s on %q: %s", q.ID, clip(q.Quote), q.Question))
		if first == "" {
			first = fmt.Sprintf("%s (%s)", q.ID, q.Question)
		}
	}
	if len(ev) == 0 {
		ev = []string{fmt.Sprintf("no open questions (%d resolved)", len(in.Questions))}
		return outcome{status: StatusPass, evidence: ev, strength: "No source question is left open."}, nil
	}
	return outcome{status: StatusWarn, evidence: ev,
		advice: fmt.Sprintf("Answer the %d open source %s, starting with %s, by adding guidance that states the reading the law intends and settles it (settles: the question's id).",
			len(ev), plural(len(ev), "question"), first)}, nil
}
