// Package usage is GET /usage: the calling key's budget and usage across
// every operation class, read from the server's meter.
package usage

import (
	"context"
	"errors"
	"net/http"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/metering"
)

// UsageClass is one class's rolling 24-hour budget and usage.
type UsageClass struct {
	// Class names the operation class, as X-RateLimit-Class does.
	Class string `json:"class" doc:"Operation class, as in X-RateLimit-Class."`
	// Enforced is false for report-only classes, whose over-budget
	// requests are served and recorded.
	Enforced bool `json:"enforced" doc:"False for report-only classes (generate): over the budget requests are recorded, not refused."`
	// Budget is the tier's allowance for any rolling 24 hours.
	Budget int64 `json:"budget" doc:"Requests allowed in any rolling 24 hours on the key's tier."`
	// Used counts the current hourly bucket and the 23 before it.
	Used int64 `json:"used" doc:"Requests counted in the current hour's bucket and the 23 before it."`
	// Remaining is Budget minus Used, floored at zero, so a client can
	// pace itself without doing the sum.
	Remaining int64 `json:"remaining" doc:"Budget minus used, never below zero."`
}

// UsageRolling is the longer per-class totals.
type UsageRolling struct {
	// SevenDays counts requests per class over 168 hourly buckets.
	SevenDays map[string]int64 `json:"7d" doc:"Requests per class in the current hour and the 167 before it."`
	// ThirtyDays counts requests per class over 720 hourly buckets.
	ThirtyDays map[string]int64 `json:"30d" doc:"Requests per class in the current hour and the 719 before it."`
}

// UsageBody is the GET /usage response.
type UsageBody struct {
	// Tier is the key's tier, which selects the budgets.
	Tier string `json:"tier" doc:"The key's tier, which selects the budgets."`
	// Reset is when the oldest hourly bucket next leaves the window, as
	// X-RateLimit-Reset reports it.
	Reset int64 `json:"reset" doc:"Epoch seconds of the next hourly boundary, when the oldest bucket leaves the window."`
	// Classes has one entry per operation class, in a fixed order.
	Classes []UsageClass `json:"classes" nullable:"false" doc:"Every operation class, in a fixed order."`
	// Rolling holds the longer totals, for trends rather than limits.
	Rolling UsageRolling `json:"rolling" doc:"7-day and 30-day request totals per class."`
}

// SchemaName is the name of UsageBody's schema in the published API document,
// where the Go name would not say what it is.
func (UsageBody) SchemaName() string { return "Usage" }

type usageOutput struct {
	Body UsageBody
}

// Register adds GET /usage to s.
func Register(s *api.Server) {
	meter := s.Meter()
	api.Register(s, api.Route{
		OperationID: "get-usage",
		Method:      http.MethodGet,
		Path:        "/usage",
		Summary:     "Budget and usage of the calling key",
		Description: "For the key in x-api-key: each operation class's rolling 24-hour budget, usage and remainder, and 7-day and 30-day per-class totals. Never metered. Counts written by other servers in the last second may not show yet.",
		Tags:        []string{"Usage"},
		Access:      api.Keyed,
		AnyKey:      true,
		Class:       api.ClassUnmetered,
	}, func(ctx context.Context, _ *struct{}) (*usageOutput, error) { return getUsage(ctx, meter) })
}

func getUsage(ctx context.Context, meter *metering.Meter) (*usageOutput, error) {
	p, err := api.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if meter == nil {
		return nil, api.ErrMeteringUnavailable
	}
	report, err := meter.Usage(ctx, metering.Caller{Subject: metering.KeySubject(p.KeyID), Tier: string(p.Tier)})
	if errors.Is(err, metering.ErrBackendUnavailable) {
		api.Log(ctx).ErrorContext(ctx, "usage", "error", err)
		return nil, api.ErrMeteringUnavailable
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
