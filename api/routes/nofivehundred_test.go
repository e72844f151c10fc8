package routes

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/bound"
)

// httpFuzzRequests is how many generated requests TestNoServerErrorFromInput
// sends; the seed is fixed, so a failure names a request that fails again.
const httpFuzzRequests = 2000

// TestNoServerErrorFromInput sends seeded random requests over raw TCP to
// every route of the interface: references with U+0000, invalid UTF-8 and
// absurd lengths, query strings likewise, bodies that are not JSON, JSON
// that is not the schema's, truncated and malformed chunked bodies,
// Content-Types other than JSON, keyed and anonymous. No answer may be a
// 5xx: bad input is the caller's error and gets a 4xx in a shape of docs/api.md#errors.
func TestNoServerErrorFromInput(t *testing.T) {
	t.Parallel()
	// A body that stops short of its framing waits out BodyReadTimeout.
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering(), BodyReadTimeout: 300 * time.Millisecond})
	key := f.Key(t, "acme", auth.AllScopes, time.Time{})
	published := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	g := &requestGen{
		rng:   rand.New(rand.NewPCG(18, 2026)),
		key:   key,
		known: []string{"acme/leave", published.RulesetID},
		paths: routePatterns(f),
	}
	addr := strings.TrimPrefix(f.HTTP.URL, "http://")
	for i := range httpFuzzRequests {
		raw, short := g.request()
		status, answer, err := send(addr, raw, short)
		if err != nil {
			t.Fatalf("request %d: %v\n%q", i, err, truncate(raw, 600))
		}
		if status >= 500 && !transient(status, answer) {
			t.Errorf("request %d answered %d %s:\n%q", i, status, truncate(answer, 300), truncate(raw, 600))
		}
	}
}

// routePatterns lists the interface's paths as mux patterns with their
// wildcards, e.g. /api/v1/public/rulesets/{id}/schema.
func routePatterns(f *apitest.Fixture) []string {
	var out []string
	for path := range f.Server.OpenAPI().Paths {
		out = append(out, api.RootPath+path)
	}
	slices.Sort(out)
	return out
}

// requestGen draws raw HTTP/1.1 requests.
type requestGen struct {
	rng   *rand.Rand
	key   string
	known []string // references that exist
	paths []string
}

var wildcard = regexp.MustCompile(`\{[^}]+\}`)

func (g *requestGen) pick(options ...string) string { return options[g.rng.IntN(len(options))] }

// reference is a path segment: a real one, or one built to break a naive
// server.
func (g *requestGen) reference() string {
	switch g.rng.IntN(9) {
	case 0:
		return "%00"
	case 1:
		return "x%00y"
	case 2:
		return "%FF%FE"
	case 3:
		return strings.Repeat("a", 1+g.rng.IntN(20000))
	case 4:
		return "prj_" + strings.Repeat("%C3%28", 8)
	case 5:
		return g.pick("rb_0000000000000000", "prj_AAAAAAAAAAAAAAAA", "dec_x", "1", "-1", "..", "%2e%2e")
	default:
		return strings.ReplaceAll(g.known[g.rng.IntN(len(g.known))], "/", "%2F")
	}
}

func (g *requestGen) query() string {
	if g.rng.IntN(2) == 0 {
		return ""
	}
	name := g.pick("q", "namespace", "limit", "cursor", "against", "release", "date", "tenant", "visibility")
	value := g.pick("%FF", "%00", "-1", "abc", "99999999999999999999", strings.Repeat("z", 5000), "demo", "2026-01-01", "%C3%28")
	return "?" + name + "=" + value
}

// body is a request body: often JSON of the right shape with a bad member,
// sometimes not JSON at all.
func (g *requestGen) body() string {
	switch g.rng.IntN(10) {
	case 0:
		return ""
	case 1:
		return "{"
	case 2:
		return strings.Repeat("[", 1+g.rng.IntN(20000))
	case 3:
		return "\x00\xff\xfe garbage"
	case 4:
		return `{"ruleset_id":"a\u0000b","field_values":{}}`
	case 5:
		return `{"ruleset_id":"` + g.known[0] + `","field_values":{"` + strings.Repeat("k", 300) + `":1},"caller_ref":{"a":"\u0000"}}`
	case 6:
		return `{"expected_outcome":"eligible","field_values":"nope"}`
	case 7:
		return `{"field_values":{"a":1e999999,"b":"\ud800"},"ruleset_id":` + g.pick(`1`, `null`, `[]`, `"x"`) + `}`
	case 8:
		return `{"visibility":` + g.pick(`"public"`, `"\u0000"`, `7`, `"secret"`) + `,"name":"` + strings.Repeat("n", g.rng.IntN(5000)) + `"}`
	default:
		return `{"ruleset_id":"` + g.known[g.rng.IntN(len(g.known))] + `","field_values":{"employment.months_employed":` +
			g.pick(`12`, `"12"`, `-1e400`, `null`, `{"x":1}`) + `}}`
	}
}

// request builds one raw request; short says its body is shorter than its
// Content-Length, so the sender must end it by closing its side.
func (g *requestGen) request() (raw []byte, short bool) {
	path := wildcard.ReplaceAllStringFunc(g.paths[g.rng.IntN(len(g.paths))], func(string) string { return g.reference() })
	method := g.pick(http.MethodGet, http.MethodPost, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete, http.MethodHead)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%s HTTP/1.1\r\nHost: test\r\nConnection: close\r\n", method, path, g.query())
	if g.rng.IntN(3) > 0 {
		fmt.Fprintf(&b, "X-Api-Key: %s\r\n", g.pick(g.key, g.key, "elg_bad", "\xff\xfe", strings.Repeat("k", 3000)))
	}
	if g.rng.IntN(4) > 0 {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", g.pick("application/json", "application/json", "text/plain",
			"application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "\x01"))
	}
	body := g.body()
	switch g.rng.IntN(4) {
	case 0: // a malformed chunked body
		fmt.Fprintf(&b, "Transfer-Encoding: chunked\r\n\r\n%s\r\n%s\r\n", g.pick("zz", "ffffffffffffffffff", "5", "-1"), body)
	case 1: // a declared length longer than what follows
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body)+10, body)
		short = true
	default:
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return []byte(b.String()), short
}

// send writes raw on a new connection, closes the writing side when the
// body is short (so that it ends), and reads the answer.
func send(addr string, raw []byte, short bool) (status int, answer []byte, err error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(raw); err != nil {
		return 0, nil, fmt.Errorf("write: %w", err)
	}
	if short {
		_ = conn.(*net.TCPConn).CloseWrite()
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, fmt.Errorf("read the answer: %w", err)
	}
	answer, _ = io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, answer, nil
}

// transient reports whether an answer is the 503 a loaded database gives
// (the key or counter store, or the decision log, too slow for a moment):
// a retryable refusal that says nothing about the input. The test runs
// beside other packages' tests on a shared machine, where that happens.
func transient(status int, answer []byte) bool {
	return status == http.StatusServiceUnavailable &&
		(bytes.Contains(answer, []byte(api.ReasonRateLimitBackendUnavailable)) || bytes.Contains(answer, []byte(api.ReasonDecisionLogBacklogged)))
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(b[:n:n], "..."...)
}

// TestSolverRunsAnswerWithinTheGate: every operation that runs the solver
// on a request waits for the caller's share of the solver slots within
// its budget, and one that cannot get a slot in time answers in the
// shape of docs/api.md#errors, never a 5xx: what it finished with complete: false
// (suggest-cases, review, explain-failure), or the diff's documented
// refusal, the promotion's presence_polarity refusal (the gate never
// passes for want of time). Here the tenant's whole share (one of two
// slots) is held for the length of the calls; see
// docs/limits.md#solver-runs.
func TestSolverRunsAnswerWithinTheGate(t *testing.T) {
	t.Parallel()
	f := apitest.Start(t, apitest.Options{Config: wiring.Config{API: api.Config{Metering: apitest.GenerousMetering()}, SolverSlots: 2}}, mountAll)
	gate := f.Gate
	key := f.Key(t, "acme", auth.AllScopes, time.Time{})
	older := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	newer := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("24"), true)
	do := func(method, path, body string) apitest.Response {
		return f.Do(t, method, path, apitest.WithKey(key), strings.NewReader(body))
	}
	created := do(http.MethodPost, "/projects/", `{"name":"Leave","section_id":"leave","source_text":"","test_cases":[]}`)
	if created.Status != http.StatusCreated {
		t.Fatalf("create project: %d %s", created.Status, created.Raw)
	}
	project := "/projects/" + created.Body.(map[string]any)["project_id"].(string)
	draft, _ := json.Marshal(map[string]string{"rules": string(apitest.LeaveRules("18"))})
	if r := do(http.MethodPut, project+"/draft", string(draft)); r.Status != http.StatusOK {
		t.Fatalf("save draft: %d %s", r.Status, r.Raw)
	}

	book := do(http.MethodPost, "/rulebooks/", `{"name":"Leave","slug":"acme/leave-book","ruleset_refs":[{"section_id":"leave"}]}`)
	if book.Status != http.StatusCreated {
		t.Fatalf("create rulebook: %d %s", book.Status, book.Raw)
	}
	promote := "/rulebooks/" + book.Body.(map[string]any)["rulebook_id"].(string)
	if r := do(http.MethodPost, promote+"/activate", ""); r.Status != http.StatusOK {
		t.Fatalf("activate rulebook: %d %s", r.Status, r.Raw)
	}
	// A candidate that reads an answer's presence, so that promoting it
	// runs the presence-polarity gate.
	candidate := f.Publish(t, "acme", "acme/leave", bytes.Replace(apitest.LeaveRules("12"), []byte("employment.months >= 12"), []byte("employment.months ?? 0 >= 12"), 1), true)

	release, err := gate.For("acme").Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cases := []struct {
		name, method, path, body string
		status                   int
		check                    func(body map[string]any) string
	}{
		{"suggest-cases", http.MethodPost, project + "/suggest-cases", `{"decision_date":"2026-01-01"}`, http.StatusOK, func(b map[string]any) string {
			inc, _ := b["incomplete"].(map[string]any)
			score, _ := b["mutation_score"].(map[string]any)
			if b["complete"] != false || inc["reason"] != bound.IncompleteDeadline || score["complete"] != false || b["done"] != float64(0) {
				return "want complete false for deadline_exceeded with nothing done"
			}
			return ""
		}},
		{"review", http.MethodPost, project + "/review", `{}`, http.StatusOK, func(b map[string]any) string {
			if b["complete"] != false {
				return "want complete false"
			}
			return ""
		}},
		{"explain-failure", http.MethodPost, "/rulesets/" + newer.RulesetID + "/explain-failure",
			`{"field_values":{"employment.months":13,"employment.kind":"staff"},"expected_outcome":"eligible"}`, http.StatusOK, func(b map[string]any) string {
				inc, _ := b["incomplete"].(map[string]any)
				if b["complete"] != false || inc["reason"] != bound.IncompleteDeadline || b["actual_outcome"] != "not_eligible" || len(b["reasons"].(map[string]any)) != 0 {
					return "want complete false for deadline_exceeded, the actual outcome and no reasons"
				}
				return ""
			}},
		{"ruleset diff", http.MethodGet, "/rulesets/" + newer.RulesetID + "/diff?against=" + older.RulesetID, "", http.StatusUnprocessableEntity, func(b map[string]any) string {
			if problem(b)["reason_code"] != api.ReasonDiffUndecided {
				return "want diff_undecided"
			}
			return ""
		}},
		{"promote-to-live", http.MethodPost, promote + "/rulesets/leave/promote-to-live", `{"ruleset_id":"` + candidate.RulesetID + `"}`, http.StatusUnprocessableEntity, func(b map[string]any) string {
			if problem(b)["reason_code"] != publish.StagePresencePolarity {
				return "want the presence_polarity gate's refusal"
			}
			return ""
		}},
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Go(func() {
			r := f.Do(t, c.method, c.path, apitest.WithKey(key), strings.NewReader(c.body))
			body, _ := r.Body.(map[string]any)
			if r.Status != c.status {
				t.Errorf("%s behind a held gate: %d %s", c.name, r.Status, truncate([]byte(r.Raw), 600))
			} else if why := c.check(body); why != "" {
				t.Errorf("%s behind a held gate: %s: %s", c.name, why, truncate([]byte(r.Raw), 600))
			}
		})
	}
	wg.Wait()
}

// TestEmptyDraftRulebook: a rulebook created with no sections (an empty
// draft is fine, docs/api.md#rulebooks) answers its reads with an empty
// composition and /decide and its diff with 422 rulebook_empty, never a
// 5xx.
func TestEmptyDraftRulebook(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	key := f.Key(t, "acme", auth.AllScopes, time.Time{})
	do := func(method, path, body string) apitest.Response {
		return f.Do(t, method, path, apitest.WithKey(key), strings.NewReader(body))
	}
	created := do(http.MethodPost, "/rulebooks/", `{"name":"Empty","slug":"acme/empty"}`)
	if created.Status != http.StatusCreated {
		t.Fatalf("create rulebook: %d %s", created.Status, created.Raw)
	}
	id := created.Body.(map[string]any)["rulebook_id"].(string)
	empty := func(v any) bool { l, ok := v.([]any); return ok && len(l) == 0 }
	cases := []struct {
		name, method, path, body string
		status                   int
		check                    func(body map[string]any) bool
	}{
		{"schema", http.MethodGet, "/rulebooks/" + id + "/schema", "", http.StatusOK, func(b map[string]any) bool {
			return empty(b["sections"]) && empty(b["fields"]) && b["release"] == nil
		}},
		{"graph", http.MethodGet, "/rulebooks/" + id + "/graph", "", http.StatusOK, func(b map[string]any) bool {
			g, _ := b["graph"].(map[string]any)
			return empty(g["nodes"]) && empty(g["edges"]) && empty(g["sections"])
		}},
		{"graph by slug", http.MethodGet, "/rulebooks/acme/empty/graph", "", http.StatusOK, func(b map[string]any) bool {
			g, _ := b["graph"].(map[string]any)
			return empty(g["nodes"])
		}},
		{"explain", http.MethodGet, "/rulebooks/" + id + "/explain", "", http.StatusOK, func(b map[string]any) bool {
			return empty(b["sections"]) && b["outcome_logic"] == nil && b["content_identity"] == ""
		}},
		{"diff", http.MethodGet, "/rulebooks/" + id + "/diff?against=v1", "", http.StatusUnprocessableEntity, func(b map[string]any) bool {
			return problem(b)["reason_code"] == api.ReasonRulebookEmpty
		}},
		{"decide", http.MethodPost, "/decide", `{"rulebook_id":"` + id + `","field_values":{}}`, http.StatusUnprocessableEntity, func(b map[string]any) bool {
			msg, _ := problem(b)["message"].(string)
			return problem(b)["reason_code"] == api.ReasonRulebookEmpty && strings.Contains(msg, "no sections")
		}},
	}
	for _, c := range cases {
		r := do(c.method, c.path, c.body)
		body, _ := r.Body.(map[string]any)
		if r.Status != c.status || !c.check(body) {
			t.Errorf("%s of an empty draft: %d %s", c.name, r.Status, truncate([]byte(r.Raw), 600))
		}
	}
}

// problem is the Problem of a refusal's body (its detail member).
func problem(body map[string]any) map[string]any {
	p, _ := body["detail"].(map[string]any)
	return p
}
