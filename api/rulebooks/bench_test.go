package rulebooks

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// benchSections are three casebank sections, 32 criteria in all, composed
// by BenchmarkDecideRulebook; benchRuleset is one casebank ruleset of
// about the same size (34 criteria).
var (
	benchSections = []string{"au-age-pension", "ssa-full-retirement-age", "us-independent-student"}
	benchRuleset  = "medicaid-adult-expansion"
)

// BenchmarkDecideRulebook measures POST /decide over real HTTP for a
// rulebook of three sections against a ruleset of about the same total
// size, in one run, keyed, decision records on: plain (served from the
// decision cache, as most traffic is) and no_cache (evaluated and planned
// afresh). Compare the two sub-benchmarks' ns/op: the aim is the
// rulebook within 1.5x of the ruleset (docs/performance.md#rulebooks).
func BenchmarkDecideRulebook(b *testing.B) {
	f := newFixture(b)
	key := f.Key(b, "bench", []auth.Scope{auth.ScopeDecide, auth.ScopeRulebooksWrite}, time.Time{})
	if _, err := f.Pool.Exec(b.Context(), `UPDATE api_keys SET tier = 'internal'`); err != nil {
		b.Fatal(err)
	}
	var refs []map[string]string
	merged := make([]map[string]json.RawMessage, 0, 64)
	var from int64 // the first day every section is in force
	for _, folder := range benchSections {
		_, cb := f.PublishCasebank(b, "bench", folder, "bench/"+folder, false)
		rules, _, err := engine.Compile(folder+".rules", cb.Rules)
		if err != nil {
			b.Fatal(err)
		}
		refs = append(refs, map[string]string{"section_id": rules.SectionID})
		if rules.Effective != nil {
			from = max(from, rules.Effective.From)
		}
		for i, c := range cb.Cases {
			for len(merged) <= i {
				merged = append(merged, map[string]json.RawMessage{})
			}
			var values map[string]json.RawMessage
			if err := json.Unmarshal(c.FieldValues, &values); err != nil {
				b.Fatal(err)
			}
			for k, v := range values {
				merged[i][k] = v
			}
		}
	}
	body, _ := json.Marshal(map[string]any{"name": "Bench", "slug": "bench/book", "ruleset_refs": refs})
	r := f.Do(b, http.MethodPost, "/rulebooks/", apitest.WithKey(key), bytes.NewReader(body))
	if r.Status != http.StatusCreated {
		b.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	if r := f.Do(b, http.MethodPost, "/rulebooks/bench%2Fbook/activate", apitest.WithKey(key), nil); r.Status != http.StatusOK {
		b.Fatalf("activate: %d %s", r.Status, r.Raw)
	}
	_, single := f.PublishCasebank(b, "bench", benchRuleset, "bench/"+benchRuleset, false)

	for _, flags := range []struct{ name, members string }{{"plain", ``}, {"no_cache", `,"no_cache":true`}} {
		bodies := map[string][][]byte{}
		for _, values := range merged {
			raw, _ := json.Marshal(values)
			bodies["rulebook"] = append(bodies["rulebook"],
				[]byte(`{"rulebook_id":"bench/book","decision_date":"`+value.FormatDate(from)+`","field_values":`+string(raw)+flags.members+`}`))
		}
		var err error
		if bodies["ruleset"], err = single.DecideBodies("bench/"+benchRuleset, flags.members); err != nil {
			b.Fatal(err)
		}
		for _, target := range []string{"ruleset", "rulebook"} {
			b.Run(flags.name+"/"+target, func(b *testing.B) {
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
				defer client.CloseIdleConnections()
				b.RunParallel(func(pb *testing.PB) {
					var buf bytes.Buffer
					for i := 0; pb.Next(); i++ {
						body := bodies[target][i%len(bodies[target])]
						req, _ := http.NewRequest(http.MethodPost, f.URL+"/decide", bytes.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("X-Api-Key", key)
						res, err := client.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						buf.Reset()
						_, _ = io.Copy(&buf, res.Body)
						res.Body.Close()
						if res.StatusCode != http.StatusOK {
							b.Errorf("%s: %d %s", target, res.StatusCode, buf.String())
							return
						}
					}
				})
			})
		}
	}
}
