package decide

import (
	"context"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/solver/plan"
)

// This file holds the steps the handler runs between reading the request
// and writing the envelope: resolve what is evaluated (catalog), convert
// field_values (reusing a conversion of the same bytes), and, on a cache
// miss, evaluate, trace, explain and plan.

// resolve finds what the request evaluates, for the caller: a ruleset, or
// a rulebook's release (or live composition) presented as a ruleset with
// the prepared rulebook beside it.
func (h *handler) resolve(ctx context.Context, req *decideRequest, date int64) (*catalog.PreparedRuleset, *catalog.PreparedRulebook, error) {
	viewer := api.ViewerOf(ctx)
	if req.RulebookID == "" {
		target, err := h.catalog.RulesetOn(ctx, viewer, req.RulesetID, date)
		if err != nil {
			return nil, nil, api.LookupFailed(ctx, err, "Ruleset", req.RulesetID)
		}
		return target, nil, nil
	}
	rb, err := h.catalog.Rulebook(ctx, viewer, req.RulebookID)
	if err != nil {
		return nil, nil, api.LookupFailed(ctx, err, "Rulebook", req.RulebookID)
	}
	book, err := h.catalog.PrepareRulebook(ctx, rb, req.ReleaseID)
	if err != nil {
		return nil, nil, api.LookupFailed(ctx, err, "Release", req.ReleaseID)
	}
	return book.Ruleset, book, nil
}

// convert hashes and converts field_values for target, reusing the result
// of byte-identical field_values on the same content when useCache is set.
func (h *handler) convert(target *catalog.PreparedRuleset, fieldValues []byte, useCache bool) (*conversion, error) {
	var (
		keyBuf [maxCachedFieldValues + 128]byte
		key    []byte
	)
	if useCache && h.conversions != nil && len(fieldValues) <= maxCachedFieldValues {
		key = conversionCacheKey(keyBuf[:0], target.ContentDigest, fieldValues)
		if c, ok := h.conversions.get(key); ok {
			return c, nil
		}
	}
	inputsHash, inputs, err := resource.ConvertFieldValues(target.Rules, fieldValues)
	if err != nil {
		return nil, err
	}
	c := &conversion{inputsHash: inputsHash, inputs: inputs}
	if key != nil {
		h.conversions.add(key, c)
	}
	return c, nil
}

// evaluate runs the engine (and trace, explanation and graph
// overlay when asked), plans the next questions, and encodes what the
// cache may keep. A planner failure leaves the decision standing without a
// plan (planFailed).
func (h *handler) evaluate(ctx context.Context, target *catalog.PreparedRuleset, book *catalog.PreparedRulebook, inputs *engine.Inputs, decisionDate int64, flags cacheFlags, inquiry plan.InquiryContext) (*decisionCore, error) {
	rules := target.Rules
	evaluating := time.Now()
	res := rules.Evaluate(inputs, engine.Options{
		DecisionDate: decisionDate,
		Trace:        flags&flagTrace != 0,
		Explanation:  flags&flagExplanation != 0,
	})
	h.metrics.Evaluated(time.Since(evaluating))
	c := coreJSON{
		FieldsProvided:  res.FieldsProvided,
		FieldsEvaluated: res.FieldsEvaluated,
		MissingFields:   res.MissingFields,
		FieldErrors:     res.FieldErrors,
		OptimalPath:     []plan.PathStep{},
		Trace:           res.Trace,
		Values:          rules.Outputs(res),
	}
	if res.Explanation != nil {
		c.Explanation = explanationFor(target, res.Explanation, true)
	}
	planFailed := false
	planning := time.Now()
	pl, err := target.Plan(ctx, inputs, res, inquiry)
	h.metrics.Planned(time.Since(planning))
	if err != nil {
		api.Log(ctx).WarnContext(ctx, "plan next question", "ruleset_id", target.ID, "error", err)
		planFailed = true
	} else {
		c.NextQuestion, c.OptimalPath = pl.NextQuestion, pl.OptimalPath
		if flags&flagChoiceContext != 0 {
			c.ChoiceContext = &pl.ChoiceContext
			if book != nil {
				cc := pl.ChoiceContext.InSections(book.Composed.FieldSections, book.Composed.GroupSectionID)
				c.ChoiceContext = &cc
			}
		}
	}
	if flags&flagGraphOverlay != 0 {
		c.GraphOverlay = present.NewGraph(rules, target.Slug, inputs, res)
	}
	if book != nil {
		for _, r := range book.Composed.SectionResults(res) {
			c.SectionResults = append(c.SectionResults, sectionResult{Letter: r.Letter, SectionID: r.SectionID,
				RulesetID: r.RulesetID, ContentDigest: r.ContentDigest, Decision: r.Decision.String()})
		}
	}
	if c.MissingFields == nil {
		c.MissingFields = []string{}
	}
	if c.FieldErrors == nil {
		c.FieldErrors = []engine.FieldError{}
	}
	unlisted := max(0, len(c.FieldErrors)-resource.MaxListedFieldErrors)
	c.FieldErrors = c.FieldErrors[:len(c.FieldErrors)-unlisted]
	members, err := encodeMembers(&c)
	if err != nil {
		return nil, err
	}
	core := &decisionCore{
		outcome:             res.Outcome,
		fieldsProvided:      res.FieldsProvided,
		fieldErrors:         len(res.FieldErrors),
		planFailed:          planFailed,
		unlistedFieldErrors: unlisted,
		members:             members,
		anonymousMembers:    members,
	}
	if res.OutsidePeriod {
		core.periodWarning, core.period = rules.PeriodWarning(res.DecisionDate), resource.WirePeriod(rules.Effective)
	}
	if res.Explanation != nil && catalog.CitesArtefacts(rules) {
		c.Explanation = explanationFor(target, res.Explanation, false)
		if core.anonymousMembers, err = encodeMembers(&c); err != nil {
			return nil, err
		}
	}
	return core, nil
}
