package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
)

// Metering runs after authentication and the body cap, before the handler,
// for every declared operation whose class is not ClassUnmetered. It reads
// only the Route declaration and the request's principal: handlers never
// count anything themselves.
//
// Who is counted: a request that the auth middleware gave a principal
// counts against that key (one unit per call, whatever the flags); any
// other request on the open surface counts against its client address
// (ClientIP, which believes X-Forwarded-For only from ELIGO_TRUSTED_PROXIES)
// at the price its Route declares (Route.Price, read from the body; one
// unit when the route declares none).

// Rate-limit response headers.
const (
	HeaderRateLimitClass     = "X-RateLimit-Class"
	HeaderRateLimitLimit     = "X-RateLimit-Limit"
	HeaderRateLimitRemaining = "X-RateLimit-Remaining"
	HeaderRateLimitReset     = "X-RateLimit-Reset"
)

// KeyedRetryAfter is the Retry-After on a keyed 429, in seconds (docs/metering.md).
const KeyedRetryAfter = 86400

// meterThen counts r against its route's class and serves it when the
// budget allows. declared is false for paths without a Route (health
// probes, OpenAPI documents), which are never metered.
func (s *Server) meterThen(w http.ResponseWriter, r *http.Request, route Route, declared bool) {
	if !declared || route.Class == ClassUnmetered || s.meter == nil {
		s.serve(w, r, route)
		return
	}
	ctx := r.Context()
	var caller metering.Caller
	cost := int64(1)
	p, keyed := auth.PrincipalFrom(ctx)
	if keyed {
		caller = metering.Caller{Subject: metering.KeySubject(p.KeyID), Tier: string(p.Tier)}
	} else {
		caller = metering.Caller{Subject: metering.AddrSubject(ClientIP(ctx)), Tier: metering.Anonymous}
		if route.Price != nil && r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				WriteError(w, BodyReadFailed(err))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			cost = route.Price(body)
		}
	}
	d, err := s.meter.Admit(ctx, caller, route.Class, cost)
	if err != nil {
		if gone := clientGone(ctx); gone != nil {
			WriteError(w, gone)
			return
		}
		Log(ctx).ErrorContext(ctx, "metering", "error", err)
		WriteError(w, ErrMeteringUnavailable)
		return
	}
	setRateLimitHeaders(w.Header(), d)
	s.metrics.Metered(string(route.Class), caller.Tier, d.Allowed)
	if !d.Allowed {
		if keyed {
			WriteError(w, quotaExceeded(d))
		} else {
			writeJSON(w, http.StatusTooManyRequests, AnonymousLimited{Error: ReasonRateLimitExceededAnonymousBody, RetryAfter: s.retryAt(r, caller, route.Class, cost, d).Unix()})
		}
		return
	}
	s.serve(w, r, route)
}

// serve runs the operation's handler, through its Idempotency-Key when it
// takes one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, route Route) {
	if !route.StreamBody && !s.checkBody(w, r) {
		return
	}
	if route.Idempotent {
		s.serveIdempotent(w, r, route)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// setRateLimitHeaders writes the four X-RateLimit-* headers of d.
func setRateLimitHeaders(h http.Header, d metering.Decision) {
	h.Set(HeaderRateLimitClass, string(d.Class))
	h.Set(HeaderRateLimitLimit, strconv.FormatInt(d.Limit, 10))
	h.Set(HeaderRateLimitRemaining, strconv.FormatInt(d.Remaining, 10))
	h.Set(HeaderRateLimitReset, strconv.FormatInt(d.Reset.Unix(), 10))
}

// retryAt is the anonymous 429's retry_after for a refused request: the
// first hourly boundary at which it would be admitted if the caller sent
// nothing else (metering.Meter.RetryAt). Read only on a refusal, so the
// admit path pays nothing for it. If the buckets cannot be read, the next
// hourly boundary is returned: no earlier retry can succeed, and the refusal
// itself is already decided.
func (s *Server) retryAt(r *http.Request, caller metering.Caller, class metering.Class, cost int64, d metering.Decision) time.Time {
	ctx := r.Context()
	at, err := s.meter.RetryAt(ctx, caller, class, cost)
	if err != nil {
		Log(ctx).ErrorContext(ctx, "metering retry time", "error", err)
		return d.Reset
	}
	return at
}

// AnonymousLimited is the anonymous limiter's 429 body (docs/metering.md):
// retry_after is the epoch second of the first hourly boundary at which the
// refused request would be admitted if the caller sent nothing else.
type AnonymousLimited struct {
	// Error is always rate_limit_exceeded.
	Error string `json:"error" enum:"rate_limit_exceeded" doc:"Always rate_limit_exceeded."`
	// RetryAfter is the epoch second from which the refused request fits
	// the budget again, if the caller sends nothing else meanwhile.
	RetryAfter int64 `json:"retry_after" doc:"Epoch second of the first hourly boundary at which the same request would be admitted if nothing else is sent meanwhile."`
}

// quotaExceeded is the keyed 429, in the standard detail shape.
func quotaExceeded(d metering.Decision) *Error {
	return &Error{status: http.StatusTooManyRequests, Detail: Problem{
		Error:      "too_many_requests",
		ReasonCode: ReasonDailyQuotaExceeded,
		Message:    fmt.Sprintf("The key has used its rolling 24-hour budget of %d %s requests.", d.Limit, d.Class),
		Hint:       "Usage falls as hourly buckets leave the 24-hour window (see X-RateLimit-Reset); GET /usage shows every class. A higher tier is set through support.",
	}}
}

// ErrMeteringUnavailable is the 503 when the counter store cannot be
// reached: the request is not served unmetered. GET /usage answers it
// too when it cannot read the counters.
var ErrMeteringUnavailable = unavailable(ReasonRateLimitBackendUnavailable, "Usage could not be checked, so the request was not served. This is transient.",
	"Retry with exponential backoff, starting after the Retry-After seconds.")
