package decide

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/metering"
)

// The flag members as docs/metering.md describes them, written out here rather
// than read from decideFlags, so the tests below check the table against
// the documentation instead of against itself.
var (
	// specFlags are every boolean member, in the order records list them.
	specFlags = []string{"include_trace", "include_explanation", "include_graph_overlay",
		"include_choice_context", "include_timing", "no_cache"}
	// specCostly are the flags an anonymous caller pays a surcharge for.
	specCostly = []string{"no_cache", "include_trace", "include_explanation", "include_graph_overlay"}
	// specCacheBits are the flags that change the cached decision.
	specCacheBits = map[string]cacheFlags{"include_trace": flagTrace, "include_explanation": flagExplanation,
		"include_graph_overlay": flagGraphOverlay, "include_choice_context": flagChoiceContext}
	// specResponseMember is the envelope member each flag adds, if any.
	specResponseMember = map[string]string{"include_trace": "trace", "include_explanation": "explanation",
		"include_graph_overlay": "graph_overlay", "include_choice_context": "choice_context", "include_timing": "timing"}
)

// randomFlagMembers draws up to a dozen flag members, repeats included,
// each true, false or null, and returns them as body members along with
// the flags a reader must end with: the last true or false of each, a null
// leaving the flag as it was.
func randomFlagMembers(rng *rand.Rand) (string, map[string]bool) {
	want := map[string]bool{}
	var members []string
	for range rng.IntN(13) {
		name := specFlags[rng.IntN(len(specFlags))]
		switch rng.IntN(3) {
		case 0:
			members = append(members, `"`+name+`":true`)
			want[name] = true
		case 1:
			members = append(members, `"`+name+`":false`)
			want[name] = false
		default:
			members = append(members, `"`+name+`":null`)
		}
	}
	if len(members) == 0 {
		return "", want
	}
	return "," + strings.Join(members, ","), want
}

// specPrice is the anonymous cost docs/metering.md gives the flags of want.
func specPrice(want map[string]bool) int64 {
	cost := int64(metering.PlainDecideCost)
	for _, name := range specCostly {
		if want[name] {
			cost += metering.FlagSurcharge
		}
	}
	return cost
}

// specRecorded is the record's flags for want.
func specRecorded(want map[string]bool) []string {
	var names []string
	for _, name := range specFlags {
		if want[name] {
			names = append(names, name)
		}
	}
	return names
}

// TestDecideFlagsAgree is a property test of the flag table: for random
// combinations of flag members (repeats and nulls included), the decoded
// request holds the last true or false of each, and the anonymous price,
// the decision cache flags and the recorded names all agree with it and
// with the documentation; metering keeps for the handler exactly the request the
// body decodes to.
func TestDecideFlagsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		members, want := randomFlagMembers(rng)
		body := []byte(`{"ruleset_id":"r","field_values":{"a":1}` + members + `}`)
		req, ok := readDecideRequest(body)
		if !ok {
			t.Fatalf("%s: refused", body)
		}
		got := map[string]bool{
			"include_trace": req.IncludeTrace, "include_explanation": req.IncludeExplanation,
			"include_graph_overlay": req.IncludeGraphOverlay, "include_choice_context": req.IncludeChoiceContext,
			"include_timing": req.IncludeTiming, "no_cache": req.NoCache,
		}
		for _, name := range specFlags {
			if got[name] != want[name] {
				t.Fatalf("%s: decoded %s=%v, want %v", body, name, got[name], want[name])
			}
		}

		if price := anonymousPrice(body); price != specPrice(want) {
			t.Fatalf("%s: price %d, want %d", body, price, specPrice(want))
		}

		var bits cacheFlags
		for name, bit := range specCacheBits {
			if want[name] {
				bits |= bit
			}
		}
		if cf := requestCacheFlags(req); cf != bits {
			t.Fatalf("%s: cache flags %b, want %b", body, cf, bits)
		}
		if names := requestFlagNames(req); !slices.Equal(names, specRecorded(want)) {
			t.Fatalf("%s: recorded %v, want %v", body, names, specRecorded(want))
		}
	}
}

// TestDecideRefusesNonBooleanFlags: a flag takes only JSON true, false or
// null; anything else refuses the body, which then costs the plain unit
// (the handler then refuses it).
func TestDecideRefusesNonBooleanFlags(t *testing.T) {
	t.Parallel()
	for _, name := range specFlags {
		for _, value := range []string{`1`, `0`, `"true"`, `""`, `[]`, `{}`} {
			body := []byte(`{"ruleset_id":"r","field_values":{"a":1},"include_trace":true,"` + name + `":` + value + `}`)
			if _, ok := readDecideRequest(body); ok {
				t.Errorf("%s: accepted", body)
			}
			if price := anonymousPrice(body); price != metering.PlainDecideCost {
				t.Errorf("%s: price %d, want the plain unit", body, price)
			}
		}
	}
}

// TestDecideFlagsOverHTTP runs the same property end to end on the real
// /decide for an anonymous caller, whose body metering reads for the
// handler: the cost read off X-RateLimit-Remaining, the envelope members
// the flags add and the record's flags all follow the decoded flags.
func TestDecideFlagsOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: metering.Config{Budgets: apitest.OverrideBudgets(t, "anonymous.decide=100000")}})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	rng := rand.New(rand.NewPCG(3, 4))
	remaining := int64(100000)
	for i := range 24 {
		members, want := randomFlagMembers(rng)
		body := `{"ruleset_id":"acme/all-types","field_values":{"a.count":` + fmt.Sprint(i) + `}` + members + `}`
		r := f.Decide(t, "", body)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", body, r.Status, r.Raw)
		}
		remaining -= specPrice(want)
		apitest.CheckRateHeaders(t, r, "decide", 100000, remaining, time.Time{})
		for name, member := range specResponseMember {
			if (r.Field(t, member) != nil) != want[name] {
				t.Fatalf("%s: %s=%v but the envelope's %s is %v", body, name, want[name], member, r.Field(t, member))
			}
		}
		rec := f.RecordOf(t, r.Field(t, "decision_id").(string))
		if !slices.Equal(rec.Flags, specRecorded(want)) {
			t.Fatalf("%s: record flags %v, want %v", body, rec.Flags, specRecorded(want))
		}
	}
}

// BenchmarkDecideBodyRead measures what the flag table and the single
// read cost per /decide call, without HTTP: a keyed call decodes its body
// in the handler and derives the cache flags and recorded names; an
// anonymous call is also priced by metering, which reads the body once
// more (Route.Price).
func BenchmarkDecideBodyRead(b *testing.B) {
	const fieldValues = `{"household.size":3,"household.income_monthly":2100,"household.has_elderly":false,"applicant.state":"CA"}`
	for _, sc := range []struct{ name, body string }{
		{"plain", `{"ruleset_id":"bench/snap-income","field_values":` + fieldValues + `}`},
		{"flags", `{"ruleset_id":"bench/snap-income","field_values":` + fieldValues + `,"include_trace":true,"include_explanation":true,"no_cache":null,"include_timing":false}`},
	} {
		body := []byte(sc.body)
		b.Run("keyed_"+sc.name, func(b *testing.B) {
			for b.Loop() {
				req, ok := readDecideRequest(body)
				if !ok {
					b.Fatal("refused")
				}
				_ = requestCacheFlags(req)
				_ = requestFlagNames(req)
			}
		})
		b.Run("anonymous_"+sc.name, func(b *testing.B) {
			for b.Loop() {
				_ = anonymousPrice(body)
				req, ok := readDecideRequest(body)
				if !ok {
					b.Fatal("refused")
				}
				_ = requestCacheFlags(req)
				_ = requestFlagNames(req)
			}
		})
	}
}
