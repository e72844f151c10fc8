package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
)

// The rulesets and checks several resources' tests share.

// leaveRulesText is a small ruleset with one cited criterion; MONTHS is
// replaced to make different content.
const leaveRulesText = `ruleset "acme/leave"
section leave
name "Leave"
description "Whether an employee may take leave."

source law "Leave Act" url "https://example.org/leave" licence "public-domain"

field employment.months int weight 2
  question "How many months have you worked here?"
field employment.kind enum ["staff", "contractor"] weight 1
  question "Are you staff or a contractor?"
  note why "Contractors are not employees." source law

group service all "Service" {
  criterion tenure "Enough months" {
    employment.months >= MONTHS
    cite law "twelve months of service"
  }
  criterion staff "Staff member" {
    employment.kind == "staff"
    cite law "an employee"
  }
}
`

// LeaveRules is leaveRulesText with its threshold.
func LeaveRules(months string) []byte {
	return []byte(strings.Replace(leaveRulesText, "MONTHS", months, 1))
}

// ArtefactRules cites a project file, so it may never be public.
const ArtefactRules = `section internal_leave

source memo "Internal memo" artefact "project:p1/source:s1" licence "proprietary"

field employment.months int

group service all "Service" {
  criterion tenure "Enough months" {
    employment.months >= 12
    cite memo "twelve months"
  }
}
`

// RulesetPath builds /rulesets/{ref}/<rest>, escaping the slug's slashes.
func RulesetPath(ref, rest string) string {
	return "/rulesets/" + url.PathEscape(ref) + rest
}

// WithKey is the x-api-key header of key, or no headers when empty.
func WithKey(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"x-api-key": key}
}

// PostExact posts body to path and decodes the answer keeping numbers as
// written: a field error echoes 1e400, which is no float64.
func PostExact(t testing.TB, f *Fixture, path, body string) (int, map[string]any) {
	t.Helper()
	res, err := http.Post(f.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("POST %s %q: answer is not a JSON object: %v", path, body, err)
	}
	return res.StatusCode, out
}

// OverrideBudgets returns the default budgets (docs/metering.md) with spec applied.
func OverrideBudgets(t testing.TB, spec string) metering.Budgets {
	t.Helper()
	b, err := metering.DefaultBudgets().Override(spec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TierKey issues a key of tier carrying scopes.
func TierKey(t testing.TB, st *store.Store, tier auth.Tier, scopes ...auth.Scope) string {
	t.Helper()
	text, _, _, err := auth.IssueKey(context.Background(), st, auth.KeyRequest{TenantID: "acme", Scopes: scopes, Tier: tier})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// CheckRateHeaders asserts the four X-RateLimit-* headers; reset is the
// expected X-RateLimit-Reset, or zero for "the next hourly boundary now".
func CheckRateHeaders(t testing.TB, r Response, class string, limit, remaining int64, reset time.Time) {
	t.Helper()
	h := r.Header
	gotReset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		t.Fatalf("X-RateLimit-Reset %q: %v", h.Get("X-RateLimit-Reset"), err)
	}
	resetOK := gotReset == reset.Unix()
	if reset.IsZero() {
		// The hour may turn between the request and this check.
		now := time.Now()
		resetOK = gotReset == metering.NextReset(now).Unix() || gotReset == metering.NextReset(now.Add(-time.Minute)).Unix()
	}
	if h.Get("X-RateLimit-Class") != class || h.Get("X-RateLimit-Limit") != strconv.FormatInt(limit, 10) ||
		h.Get("X-RateLimit-Remaining") != strconv.FormatInt(remaining, 10) || !resetOK {
		t.Fatalf("status %d: rate-limit headers class=%q limit=%q remaining=%q reset=%q, want %s %d %d (reset %v)",
			r.Status, h.Get("X-RateLimit-Class"), h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"),
			h.Get("X-RateLimit-Reset"), class, limit, remaining, reset)
	}
}

// NoRateHeaders asserts that h carries no X-RateLimit-* header.
func NoRateHeaders(t testing.TB, what string, h http.Header) {
	t.Helper()
	for name := range h {
		if strings.HasPrefix(name, "X-Ratelimit-") {
			t.Fatalf("%s carries %s: it must not be metered", what, name)
		}
	}
}

// BigIntRules tells apart two integers that RFC 8785 (and so inputs_hash)
// cannot: 2^53 and 2^53 + 1.
const BigIntRules = `ruleset "acme/big"
section big

source law "Test law" url "https://example.test/law" licence "public-domain"

field x.n int weight 1

group g all "Big enough" {
  criterion big "Above 2^53" {
    x.n >= 9007199254740993
    cite law "the whole law"
  }
}
`

// SameJSON reports whether a and b are the same JSON value (both empty
// counts as the same).
func SameJSON(t testing.TB, a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return reflect.DeepEqual(DecodeExact(t, a), DecodeExact(t, b))
}

// DecodeExact decodes JSON keeping numbers as their text, so values beyond
// float64 compare too.
func DecodeExact(t testing.TB, b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// LogBuffer is a log sink the server's goroutines and a test may share:
// a test hands it to a logger and reads what was written with String.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends one write, whole, under the lock.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Allocated runs f and returns the bytes the process allocated meanwhile
// (runtime.MemStats.TotalAlloc), client and server together: what tests
// of a request's cost bound relative to its body. Tests that use it must
// not run in parallel with others.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// PostRefused posts body to path with key (none when empty) and checks
// the answer with CheckBoundedRefusal: a short 422 led by an item of type
// first, costing at most perByte bytes of allocation per body byte.
func (f *Fixture) PostRefused(t testing.TB, path, key string, body []byte, first string, perByte int) {
	t.Helper()
	var r Response
	allocated := Allocated(func() { r = f.Do(t, http.MethodPost, path, WithKey(key), bytes.NewReader(body)) })
	CheckBoundedRefusal(t, r, first, allocated, len(body), perByte)
}

// CheckBoundedRefusal fails t unless r is a 422 validation list whose
// first item is of type first, of at most 16 KiB, that cost at most
// perByte times body bytes of allocation (allocated, from Allocated).
func CheckBoundedRefusal(t testing.TB, r Response, first string, allocated uint64, body, perByte int) {
	t.Helper()
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Raw, `"type":"`+first+`"`) || len(r.Raw) > 16<<10 {
		t.Fatalf("a %d-byte body: %d, %d bytes: %.500s", body, r.Status, len(r.Raw), r.Raw)
	}
	if allocated > uint64(perByte*body) {
		t.Errorf("answering a %d-byte body allocated %d bytes (%.1f per byte); want at most %d per byte",
			body, allocated, float64(allocated)/float64(body), perByte)
	}
}
