package resource

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/tidwall/gjson"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// DecisionDate is the optional decision_date member of /decide and
// explain-failure requests: the date the decision is made as of (an
// application date, an appeal), written like a date answer, an ISO
// "YYYY-MM-DD" string or an integer ordinal (days since year 1,
// 0001-01-01 being 1). It is kept as sent and read by Ordinal, so that a
// value that is well-formed JSON but no calendar date is a 422 naming the
// member rather than a malformed body. The zero DecisionDate is absent:
// today, UTC.
type DecisionDate struct {
	// raw is the member's JSON as sent; empty when absent or null.
	raw string
}

// DecisionDateOf reads the member from a body being read with gjson, as
// the schema (Schema) admits it: a YYYY-MM-DD string that time.Parse
// reads, a whole number from 1 to 3652059, or null (absent). ok is false
// for anything else, which the caller then refuses through the schema.
// Year 0, which the schema's date format admits, is left to Ordinal.
func DecisionDateOf(v gjson.Result) (d DecisionDate, ok bool) {
	switch v.Type {
	case gjson.Null:
		return DecisionDate{}, true
	case gjson.String:
		if _, err := time.Parse(time.DateOnly, v.Str); err != nil || v.Raw != `"`+v.Str+`"` {
			return DecisionDate{}, false
		}
	case gjson.Number:
		n, err := strconv.ParseInt(v.Raw, 10, 64)
		if err != nil || n < 1 || n > maxOrdinal {
			return DecisionDate{}, false
		}
	default:
		return DecisionDate{}, false
	}
	return DecisionDate{raw: v.Raw}, true
}

// maxOrdinal is the ordinal of 9999-12-31, the last date there is.
const maxOrdinal = 3652059

// UnmarshalJSON keeps the member as sent. Like encoding/json with a
// string, null leaves an earlier value in place.
func (d *DecisionDate) UnmarshalJSON(b []byte) error {
	if string(b) != "null" {
		d.raw = string(b)
	}
	return nil
}

// MarshalJSON writes the member as it was sent (null when absent).
func (d DecisionDate) MarshalJSON() ([]byte, error) {
	if d.raw == "" {
		return []byte("null"), nil
	}
	return []byte(d.raw), nil
}

// Given reports whether the request named a decision date.
func (d DecisionDate) Given() bool { return d.raw != "" }

// Ordinal is the ordinal date the request names, or today's (UTC, from
// now) when it names none. A value that is not a calendar date from
// 0001-01-01 to 9999-12-31 (an impossible date, a datetime, a fraction) is
// a 422 at body.decision_date.
func (d DecisionDate) Ordinal(now time.Time) (int64, error) {
	if d.raw == "" {
		return value.DateOf(now), nil
	}
	var s string
	if json.Unmarshal([]byte(d.raw), &s) == nil {
		if ord, ok := value.ParseDate(s); ok {
			return ord, nil
		}
		return 0, d.invalid(s)
	}
	if n, err := strconv.ParseInt(d.raw, 10, 64); err == nil && n >= 1 && n <= maxOrdinal {
		return n, nil
	}
	return 0, d.invalid(json.RawMessage(d.raw))
}

func (d DecisionDate) invalid(input any) error {
	return api.ValidationFailed(api.InvalidDecisionDate(input))
}

// Schema documents the member as a date string or an ordinal.
func (DecisionDate) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{
		Description: "The date the decision is made as of, e.g. an application or appeal date: an ISO YYYY-MM-DD string or an integer ordinal (days since year 1; 0001-01-01 is 1), like a date answer. Absent or null: today (UTC). It is what decision_date() reads in the rules and what the ruleset's effective period is checked against; a slug resolves to the cut whose effective period covers it (a concrete ruleset_id always runs that cut). Outside the period of the cut that runs, the decision is undetermined with a warning (code outside_effective_period) naming the date and the period.",
		OneOf: []*huma.Schema{
			{Type: huma.TypeString, Format: "date", Pattern: `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`},
			{Type: huma.TypeInteger, Minimum: new(1.0), Maximum: new(float64(maxOrdinal))},
		},
	}
}

// ResponseWarning is one entry of a response's warnings array: something that did
// not stop the request, such as a decision date outside a ruleset's
// effective period (code outside_effective_period).
type ResponseWarning struct {
	// Code names the warning for callers that branch on it.
	Code string `json:"code" doc:"What the warning is about, e.g. outside_effective_period."`
	// Message says it for people.
	Message string `json:"message"`
	// Period is the effective period the rules cover, on
	// outside_effective_period only.
	Period *Period `json:"period,omitempty" doc:"On outside_effective_period only: the period the rules cover."`
}

// Period is a ruleset's effective period on the wire, both ends
// inclusive, so a reader can say which dates the rules decide without
// parsing a message.
type Period struct {
	// From is the first day the rules hold, YYYY-MM-DD.
	From string `json:"from" format:"date" doc:"The first day the rules hold."`
	// Until is the last day they hold; left out when open-ended.
	Until string `json:"until,omitempty" format:"date" doc:"The last day the rules hold; left out when the period is open-ended."`
}

// WirePeriod is p on the wire; nil for nil.
func WirePeriod(p *engine.Period) *Period {
	if p == nil {
		return nil
	}
	out := &Period{From: value.FormatDate(p.From)}
	if p.Until != 0 {
		out.Until = value.FormatDate(p.Until)
	}
	return out
}

// DateParam reads the date a parameter (name, in "query" or "body") gives
// as YYYY-MM-DD, or today's (UTC, from now) when raw is empty: the
// decision date of the diff and suggestion operations. A value that is not
// a calendar date is a 422 at in.name.
func DateParam(in, name, raw string, now time.Time) (int64, error) {
	if raw == "" {
		return value.DateOf(now), nil
	}
	d, ok := value.ParseDate(raw)
	if !ok {
		return 0, api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{in, name},
			Msg: "Value error, not a calendar date", Input: raw})
	}
	return d, nil
}
