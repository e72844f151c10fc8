package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/metering"
)

// description is the document's description: the fixed text, the open
// surface, and the limits in force with the operations of each class.
func description(s *api.Server) string {
	d := apiDescriptionHead + openSurfaceText(s.OpenSurface()) + apiDescriptionTail
	if m := s.Meter(); m != nil {
		d += meteringDescription(m.Budgets(), operationsByClass(s.Routes()))
	}
	return d
}

const apiDescriptionHead = `Eligo evaluates applicants' answers against published, compiled eligibility rulesets and rulebooks, deterministically, with an audit envelope, and lets invited authoring teams turn source text plus test cases into verified rulesets.

## Authentication

Send an API key in the ` + "`x-api-key`" + ` header. Operations outside the open surface need a key carrying the scopes listed on each operation: no key gives 401 ` + "`missing_api_key`" + `, an unknown or revoked key 401 ` + "`invalid_api_key`" + `, an expired key 401 ` + "`api_key_expired`" + `, a key without the scope 403 ` + "`denied_missing_permission`" + `.

## Open surface

These operations serve anonymous callers. A key carrying the operation's scope is used (it can reach the tenant's private objects); any other key sent there is ignored, and the call is served as anonymous. Browsers may call them from any origin, without credentials.

`

const apiDescriptionTail = `
Every other operation grants CORS only to the deployment's first-party origins.

## Errors

Most errors carry ` + "`detail`" + ` as ` + "`{error, reason_code, message}`" + `. Validation failures are 422 with ` + "`detail`" + ` a list of ` + "`{type, loc, msg, input}`" + `: at most 50 items; when more were found, a last item of type ` + "`too_many_errors`" + ` (` + "`loc`" + ` ` + "`[\"body\"]`" + `) counts the rest in its integer ` + "`input`" + `. Not-found lookups carry a plain string ` + "`detail`" + `. A 500 is opaque; quote its ` + "`X-Request-Id`" + ` response header when reporting it. An anonymous request body over 2 MB is refused with 413 before it is read. Each operation lists the error statuses it can answer with, the reason codes of each and its body shapes (components ` + "`ProblemError`, `ValidationError`, `NotFoundError` and, for anonymous 429s, `AnonymousLimited`" + `).
`

// openSurfaceText renders the open surface for the OpenAPI description.
func openSurfaceText(open []api.Endpoint) string {
	var b strings.Builder
	b.WriteString("| Method | Path |\n|---|---|\n")
	for _, e := range open {
		fmt.Fprintf(&b, "| %s | %s |\n", e.Method, e.Path)
	}
	return b.String()
}

// meteringDescription documents the limits in the OpenAPI description,
// from the class and budget tables in force; ops lists each class's
// registered operations, so the table names only routes that exist.
func meteringDescription(b metering.Budgets, ops map[api.Class][]api.Endpoint) string {
	var sb strings.Builder
	sb.WriteString("\n## Limits\n\nEvery request to an operation counts against one operation class (each operation names its class in its description and in `x-eligo-metering-class`). ")
	sb.WriteString("`GET /usage`, `/healthz` and `/readyz` are never metered. Usage is a rolling 24-hour window: the current UTC hour's bucket and the 23 before it. ")
	sb.WriteString("`generate` is report-only: over its budget a request is recorded and served. Every other class is enforced.\n\n")
	sb.WriteString("| Class | Enforced | Operations |\n|---|---|---|\n")
	for _, c := range metering.Classes {
		names := make([]string, len(ops[c.Class]))
		for i, e := range ops[c.Class] {
			names[i] = e.Method + " " + e.Path
		}
		operations := strings.Join(names, ", ")
		if operations == "" {
			operations = "none in this API"
		}
		fmt.Fprintf(&sb, "| `%s` | %s | %s |\n", c.Class, map[bool]string{true: "yes", false: "report-only"}[c.Enforced], operations)
	}
	sb.WriteString("\nBudgets per rolling 24 hours (anonymous: per client address, in cost units; keys: per key, in requests):\n\n| Tier |")
	for _, c := range metering.Classes {
		fmt.Fprintf(&sb, " %s |", c.Class)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(metering.Classes)) + "\n")
	for _, tier := range metering.Tiers() {
		fmt.Fprintf(&sb, "| %s |", tier)
		for _, c := range metering.Classes {
			if _, ok := b[tier][c.Class]; !ok && tier == metering.Anonymous {
				sb.WriteString(" n/a |")
				continue
			}
			fmt.Fprintf(&sb, " %d |", b.Limit(tier, c.Class))
		}
		sb.WriteString("\n")
	}
	sb.WriteString(`
An anonymous request costs one unit, or the price its operation's description states (/decide's depends on its flags). Anonymous callers are counted by client address (per /64 for IPv6), taken from the trusted proxy hop, never from a caller-supplied X-Forwarded-For. A key counts one unit per call.

Every metered response carries ` + "`X-RateLimit-Class`, `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`" + ` (epoch seconds of the next hourly boundary).

Over the budget:
- with a key: 429 ` + "`{\"detail\": {\"error\": \"too_many_requests\", \"reason_code\": \"daily_quota_exceeded\", ...}}`" + ` and ` + "`Retry-After: 86400`" + `;
- anonymous: 429 ` + "`{\"error\": \"rate_limit_exceeded\", \"retry_after\": <epoch seconds>}`" + `, retry_after being the first hourly boundary at which the same request would be admitted if nothing else is sent meanwhile: the first boundary at which the usage still in the window, plus the request's cost, is within the budget. Usage spent this hour stays in the window for 24 hours, so this is usually later than X-RateLimit-Reset. A request dearer than the whole budget is never admitted; its retry_after is when the window is empty.

Both carry the rate-limit headers; a refused request is not counted.

Unmetered: GET /usage (reading a budget does not spend it), and the studio editor's checks and completions as an author types (POST /projects/{project_id}/draft/check and .../draft/complete), which a tenant may send at most 60 at once, refilled at one a second (429 ` + "`editor_checks_limited`" + ` with Retry-After).

If usage cannot be checked, the answer is 503 ` + "`rate_limit_backend_unavailable`" + ` with ` + "`Retry-After: 1`" + `: transient; retry with exponential backoff. A request is never served unmetered. Counts from several servers meet in one database; each server may let through at most 1% of the budget (at least one request) beyond it before it sees the other servers' counts. While the usage counters cannot be reached, each server keeps counting in memory and serves at most 5% of each budget (at least one request) more, writing the counts once the counters answer again; past that share it answers 503.
`)
	return sb.String()
}

// operationsByClass lists the registered operations of each metering
// class, in path then method order, for the description's limits table.
func operationsByClass(routes []api.Route) map[api.Class][]api.Endpoint {
	out := map[api.Class][]api.Endpoint{}
	for _, r := range routes {
		out[r.Class] = append(out[r.Class], api.Endpoint{Method: r.Method, Path: r.Path})
	}
	for _, ops := range out {
		slices.SortFunc(ops, func(a, b api.Endpoint) int {
			return strings.Compare(a.Path+" "+a.Method, b.Path+" "+b.Method)
		})
	}
	return out
}
