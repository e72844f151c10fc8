package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/eligo/eligo/api/auth"
	"github.com/eligo/eligo/metering"
)

// UsageClass is one class's rolling 24-hour budget and usage.
type UsageClass struct {
	Class     string `json:"class" doc:"Operation class, as in X-RateLimit-Class."`
	Enforced  bool   `json:"enforced" doc:"False for report-only classes (generate): over the budget requests are recorded, not refused."`
	Budget    int64  `json:"budget" doc:"Requests allowed in any rolling 24 hours on the key's tier."`
	Used      int64  `json:"used" doc:"Requests counted in the current hour's bucket and the 23 before it."`
	Remaining int64  `json:"remaining" doc:"Budget minus used, never below zero."`
}

// UsageRolling is the longer per-class totals.
type UsageRolling struct {
	SevenDays  map[string]int64 `json:"7d" doc:"Requests per class in the current hour and the 167 before it."`
	ThirtyDays map[string]int64 `json:"30d" doc:"Requests per class in the current hour and the 719 before it."`
}

// UsageBody is the GET /usage response.
type UsageBody struct {
	Tier    string       `json:"tier" doc:"The key's tier, which selects the budgets."`
	Reset   int64        `json:"reset" doc:"Epoch seconds of the next hourly boundary, when the oldest bucket leaves the window."`
	Classes []UsageClass `json:"classes" doc:"Every operation class, in a fixed order."`
	Rolling UsageRolling `json:"rolling"`
}

type usageOutput struct {
	Body UsageBody
}

// registerUsage registers GET /usage.
func (s *Server) registerUsage() {
	if s.meter != nil {
		s.huma.OpenAPI().Info.Description += meteringDescription(s.meter.Budgets())
	}
	Register(s, Route{
		OperationID: "get-usage",
		Method:      http.MethodGet,
		Path:        "/usage",
		Summary:     "Budget and usage of the calling key",
		Description: "For the key in x-api-key: each operation class's rolling 24-hour budget, usage and remainder, and 7-day and 30-day per-class totals. Never metered. Counts written by other servers in the last second may not show yet.",
		Tags:        []string{"Usage"},
		Access:      Keyed,
		AnyKey:      true,
		Class:       ClassUnmetered,
	}, s.getUsage)
}

func (s *Server) getUsage(ctx context.Context, _ *struct{}) (*usageOutput, error) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return nil, errMissingKey
	}
	if s.meter == nil {
		return nil, errMeteringUnavailable
	}
	report, err := s.meter.Usage(ctx, metering.Caller{Subject: metering.KeySubject(p.KeyID), Tier: string(p.Tier)})
	if errors.Is(err, metering.ErrBackendUnavailable) {
		logFrom(ctx).ErrorContext(ctx, "usage", "error", err)
		return nil, errMeteringUnavailable
	}
	if err != nil {
		return nil, err
	}
	out := &usageOutput{Body: UsageBody{
		Tier:    string(p.Tier),
		Reset:   report.Reset.Unix(),
		Classes: make([]UsageClass, 0, len(report.Classes)),
		Rolling: UsageRolling{SevenDays: map[string]int64{}, ThirtyDays: map[string]int64{}},
	}}
	for _, c := range report.Classes {
		out.Body.Classes = append(out.Body.Classes, UsageClass{
			Class: string(c.Class), Enforced: c.Class.Enforced(), Budget: c.Budget, Used: c.Used, Remaining: c.Remaining,
		})
		out.Body.Rolling.SevenDays[string(c.Class)] = c.Week
		out.Body.Rolling.ThirtyDays[string(c.Class)] = c.Month
	}
	return out, nil
}
