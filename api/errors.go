package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"
	"github.com/eligo/eligo/api/pydantic"
	"github.com/eligo/eligo/api/redact"
	"github.com/eligo/eligo/auth"
)

// This file is the one place that turns errors into response bodies. Every
// error the API answers with is an *Error; huma's own errors (validation,
// malformed JSON, oversized bodies, handler failures) are converted by
// newHumaError, which replaces huma.NewError.

// Error is an HTTP error response: a status and the `detail` member
// (docs/api.md#errors),
// which is an object {error, reason_code, message, ...} for most errors, a
// list of validation items for 422 validation failures, or a plain string for
// not-found lookups.
type Error struct {
	status int
	// retryAfter, when positive, is the Retry-After the answer carries
	// instead of its status's own (see GetHeaders).
	retryAfter time.Duration
	// Detail is the body's only member.
	Detail any `json:"detail"`
}

// WithRetryAfter returns a copy of e whose Retry-After says to come back
// after d (whole seconds, at least one), for a refusal whose wait is its
// own rather than its status's (a limit on work under way, not the daily
// quota's day).
func (e *Error) WithRetryAfter(d time.Duration) *Error {
	c := *e
	c.retryAfter = max(d, time.Second)
	return &c
}

// Error returns a short text for logs.
func (e *Error) Error() string {
	switch d := e.Detail.(type) {
	case Problem:
		return fmt.Sprintf("%d %s: %s", e.status, d.ReasonCode, d.Message)
	case string:
		return fmt.Sprintf("%d %s", e.status, d)
	default:
		return fmt.Sprintf("%d %s", e.status, http.StatusText(e.status))
	}
}

// GetStatus returns the HTTP status; huma calls it to write the response.
func (e *Error) GetStatus() int { return e.status }

// GetHeaders returns the headers that go with e's status, so that every
// path that answers with an error (the middleware through writeError,
// handlers through huma, which calls GetHeaders) sends them alike: a 401
// names the authentication scheme (RFC 9110 requires WWW-Authenticate), a
// keyed 429 says to come back in a day (Retry-After: 86400, docs/metering.md) and
// a 503 is transient (retry after a second, with backoff).
func (e *Error) GetHeaders() http.Header {
	if e.retryAfter > 0 {
		return http.Header{"Retry-After": {strconv.Itoa(int(e.retryAfter / time.Second))}}
	}
	switch e.status {
	case http.StatusUnauthorized:
		return http.Header{"Www-Authenticate": {`ApiKey header="x-api-key"`}}
	case http.StatusTooManyRequests:
		return http.Header{"Retry-After": {strconv.Itoa(KeyedRetryAfter)}}
	case http.StatusServiceUnavailable:
		return http.Header{"Retry-After": {"1"}}
	}
	return nil
}

// Problem is the object form of `detail`.
type Problem struct {
	// Error is a short category, e.g. unauthorized, forbidden, not_found.
	Error string `json:"error"`
	// ReasonCode is the machine-readable cause callers branch on.
	ReasonCode string `json:"reason_code"`
	// Message is for humans; it never echoes submitted values.
	Message string `json:"message"`
	// Action is the permission that was needed (403 only), e.g.
	// scope.rulesets:write.
	Action string `json:"action,omitempty"`
	// MissingPermissions lists the scopes the key lacks (403 only).
	MissingPermissions []string `json:"missing_permissions,omitempty"`
	// Hint says how to get past the error, when there is a way.
	Hint string `json:"hint,omitempty"`
}

// ValidationItem is one entry of a 422 validation list, shaped like
// pydantic's: type (extra_forbidden, missing, int_type, enum...), loc
// (["body", "field", 0, ...]), msg and input (the offending value).
type ValidationItem struct {
	// Type is the pydantic error type callers branch on.
	Type string `json:"type" doc:"The error type: missing, extra_forbidden, int_type, enum, json_invalid, string_too_long... A list holds at most 50 items; when more were found, a last item of type too_many_errors (loc [\"body\"]) counts the rest in its input, an integer."`
	// Loc is the path to the offending member, starting with body, query,
	// path or header; list indices are numbers.
	Loc []any `json:"loc" nullable:"false" doc:"Path to the offending member: body, query, path or header, then names and list indices."`
	// Msg is for humans.
	Msg string `json:"msg" doc:"What is wrong, for humans."`
	// Input is the offending value (for a missing member, its parent),
	// as ValidationFailed cuts it: credentials redacted, long strings
	// cut, large or deep values summarised.
	Input any `json:"input" doc:"The offending value, cut for the echo: a credential is never echoed but replaced by \"[redacted]\" (a member named as one, such as provider_key in any letter case or misspelt, and any value that looks like a key: sk-..., an API key, which keeps its elg_<prefix>_, or a long random token); a string over 200 bytes is cut with its length noted; an object or array over 20 members, or nested over 3 levels, is summarised as a string giving its size."`
}

// NewProblem builds an error whose detail is a Problem.
func NewProblem(status int, errorCode, reasonCode, message string) *Error {
	return &Error{status: status, Detail: Problem{Error: errorCode, ReasonCode: reasonCode, Message: message}}
}

// quoted writes s as a Go-quoted string, as not-found details name refs,
// with any credential in it redacted (auth.RedactSecrets): a key pasted
// into a path is not sent back.
func quoted(s string) string { return strconv.Quote(auth.RedactSecrets(s)) }

// NewError builds an error with any detail: for a refusal whose detail
// extends Problem with members of its own (the polarity gate's witness).
func NewError(status int, detail any) *Error { return &Error{status: status, Detail: detail} }

// NotFound builds the not-found answer (docs/api.md#errors): 404 with a plain string
// detail (no reason_code). Private objects of other tenants use it too.
func NotFound(message string) *Error {
	return &Error{status: http.StatusNotFound, Detail: message}
}

// ValidationFailed builds a 422 whose detail is the given list, each
// item's input cut for the echo (redact.Echo): no secret, nothing long.
// A list longer than MaxValidationItems is cut there and ends with a
// too_many_errors item counting the rest (validationList).
func ValidationFailed(items ...ValidationItem) *Error {
	if len(items) > MaxValidationItems {
		return validationList(items, 0)
	}
	for i := range items {
		items[i].Input = redact.Echo(items[i].Loc, items[i].Input)
	}
	return &Error{status: http.StatusUnprocessableEntity, Detail: items}
}

// Internal is the opaque 500: no stack, no cause, no echo of the request.
// The cause belongs in the server log, keyed by the request id.
func Internal() *Error {
	return NewProblem(http.StatusInternalServerError, "internal_error", ReasonInternalError,
		"The server could not complete the request. Quote the X-Request-Id response header when reporting it.")
}

// TooLarge is the 413 for a body over the caller's cap.
func TooLarge(limit int64) *Error {
	return NewProblem(http.StatusRequestEntityTooLarge, "payload_too_large", ReasonBodyTooLarge,
		fmt.Sprintf("The request body exceeds the limit of %d bytes for this caller.", limit))
}

// WriteError writes e as JSON, for what answers outside huma: the
// middleware, pages and the published documents.
func WriteError(w http.ResponseWriter, e *Error) {
	body, err := json.Marshal(e)
	if err != nil {
		body = []byte(`{"detail":"internal error"}`)
	}
	h := w.Header()
	for name, values := range e.GetHeaders() {
		h[name] = values
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

var installHumaErrors sync.Once

// useEligoErrors replaces huma's package-level error constructor with
// newHumaError. huma offers only this global hook; it is set once, before
// the first API is built, and every Eligo API wants the same mapping.
func useEligoErrors() {
	installHumaErrors.Do(func() {
		huma.NewError = newHumaError
		huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
			se := newHumaError(status, msg, errs...)
			if e, ok := se.(*Error); ok && e.status == http.StatusUnprocessableEntity {
				if st := stateFrom(ctx.Context()); st != nil {
					suggestMembers(e, st.members)
				}
			}
			if se.GetStatus() >= 500 {
				if gone := clientGone(ctx.Context()); gone != nil {
					// huma sends the headers of the handler's own error
					// only; this one replaces a 500, so its Retry-After is
					// set here.
					for name, values := range gone.GetHeaders() {
						for _, v := range values {
							ctx.AppendHeader(name, v)
						}
					}
					return gone
				}
				Log(ctx.Context()).ErrorContext(ctx.Context(), "request failed",
					"error", redact.ForLog(errors.Join(errs...).Error()), "reason", msg)
			}
			return se
		}
	})
}

// newHumaError maps an error raised inside huma to the shapes of docs/api.md#errors.
func newHumaError(status int, msg string, errs ...error) huma.StatusError {
	for _, err := range errs {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return TooLarge(tooBig.Limit)
		}
	}
	switch {
	case status == 0:
		// huma calls NewError(0, "") at registration to learn the error
		// schema; any *Error will do.
		return &Error{}
	case status == http.StatusRequestEntityTooLarge:
		return NewProblem(status, "payload_too_large", ReasonBodyTooLarge, "The request body is too large.")
	case status == http.StatusInternalServerError && msg == humaUnreadableBody:
		return ErrUnreadableBody
	case status >= 500:
		return Internal()
	case status == http.StatusUnsupportedMediaType:
		return ErrUnsupportedMediaType
	case status == http.StatusRequestTimeout:
		return ErrBodyTimeout
	case msg == "request body is required":
		return ValidationFailed(ValidationItem{Type: "missing", Loc: []any{"body"}, Msg: "Field required", Input: nil})
	case status == http.StatusBadRequest && isBodyParseFailure(errs):
		return ValidationFailed(ValidationItem{Type: "json_invalid", Loc: []any{"body"}, Msg: "JSON decode error", Input: map[string]any{}})
	case status == http.StatusUnprocessableEntity || (status == http.StatusBadRequest && len(errs) > 0):
		// Only the items a 422 lists are built; the rest are counted.
		listed := errs[:min(len(errs), MaxValidationItems)]
		items := make([]ValidationItem, 0, len(listed))
		for _, err := range listed {
			items = append(items, validationItem(err))
		}
		return validationList(items, len(errs)-len(listed))
	default:
		code := strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
		if code == "" {
			code = "error"
		}
		return NewProblem(status, code, code, msg)
	}
}

// ErrClientGone answers a request whose caller hung up before it was
// served (its context was cancelled): the work that failed for that reason
// is not the server's fault, so it is a 400 logged at INFO, never a 5xx
// logged at ERROR. The caller is gone and will not read it.
var ErrClientGone = NewProblem(http.StatusBadRequest, "bad_request", ReasonClientClosedRequest,
	"The client closed the connection before the request was served.")

// unavailable is a transient 503 with the reason, what happened and how
// to get past it (its Retry-After is 1 unless WithRetryAfter says more).
func unavailable(reason, message, hint string) *Error {
	return &Error{status: http.StatusServiceUnavailable, Detail: Problem{
		Error: "service_unavailable", ReasonCode: reason, Message: message, Hint: hint}}
}

// ErrDatabaseUnavailable answers a read that needed the database (a
// reference not in the caches) while it could not be reached.
var ErrDatabaseUnavailable = unavailable(ReasonDatabaseUnavailable, "The database could not be reached to resolve the reference, so the request was not served.",
	"Retry with backoff; references already in use keep being served.")

// ErrWorkTimeout answers a request whose work ran past the server's work
// deadline (Config.WorkTimeout): it stopped without committing anything,
// and the answer is written before the connection's write timeout, so a
// caller never retries work that in fact went through.
var ErrWorkTimeout = unavailable(ReasonWorkTimeout, "The request's work did not finish within the time the server gives one request, so it was stopped and nothing was written.",
	"Retry after the Retry-After seconds; a smaller request (fewer criteria, files or cases) finishes sooner.").WithRetryAfter(workRetryAfter)

// workRetryAfter is ErrWorkTimeout's Retry-After: long enough for the
// heavy work that filled the process's slots to drain.
const workRetryAfter = 30 * time.Second

// clientGone returns the answer to a request that failed because its
// context ended: ErrClientGone when its caller hung up (logged at INFO),
// ErrWorkTimeout when its work ran past the work deadline (at WARN); nil
// when its context is live, and the failure is the server's.
func clientGone(ctx context.Context) *Error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		Log(ctx).InfoContext(ctx, "the client hung up before the request was served")
		return ErrClientGone
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		Log(ctx).WarnContext(ctx, "the request's work ran past the work deadline")
		return ErrWorkTimeout
	}
	return nil
}

// humaUnreadableBody is the message huma gives, with a 500, when reading
// the body fails: the caller's doing (a malformed chunked encoding, a body
// shorter than its Content-Length, a hang-up), so it is answered 400.
const humaUnreadableBody = "cannot read request body"

// ErrUnreadableBody is the 400 for a body that could not be read to its
// end: a malformed chunked encoding, or a connection that ended early.
var ErrUnreadableBody = NewProblem(http.StatusBadRequest, "bad_request", ReasonBodyUnreadable,
	"The request body could not be read: its chunked encoding is malformed or the connection ended before it did.")

// ErrBodyTimeout is the 408 for a body still arriving when BodyReadTimeout
// ran out.
var ErrBodyTimeout = NewProblem(http.StatusRequestTimeout, "request_timeout", ReasonBodyTimeout,
	"The request body did not arrive in time. Send it at once after the headers.")

// BodyReadFailed is the answer to a failed read of a request body: 413 when
// it outgrew the caller's cap, 408 when it did not arrive in time, else
// 400.
func BodyReadFailed(err error) *Error {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return TooLarge(tooBig.Limit)
	case errors.As(err, &netErr) && netErr.Timeout():
		return ErrBodyTimeout
	default:
		return ErrUnreadableBody
	}
}

// ErrUnsupportedMediaType is the 415 for a JSON operation's body sent with
// a Content-Type other than JSON.
var ErrUnsupportedMediaType = NewProblem(http.StatusUnsupportedMediaType, "unsupported_media_type", ReasonUnsupportedMediaType,
	"Send the request body as JSON, with Content-Type: application/json.")

// isBodyParseFailure recognises huma's report of a body that is not valid
// JSON: a single detail located at "body" carrying the raw text.
func isBodyParseFailure(errs []error) bool {
	if len(errs) != 1 {
		return false
	}
	var d *huma.ErrorDetail
	return errors.As(errs[0], &d) && d.Location == "body"
}

// validationItem converts one huma validation detail into a pydantic-style
// item (package pydantic says how each of huma's messages reads).
func validationItem(err error) ValidationItem {
	var d *huma.ErrorDetail
	if !errors.As(err, &d) {
		return ValidationItem{Type: "value_error", Loc: []any{"body"}, Msg: err.Error()}
	}
	loc := pydantic.Location(d.Location)
	item := ValidationItem{Type: "value_error", Loc: loc, Msg: d.Message, Input: d.Value}
	switch {
	case d.Location == "body.decision_date":
		// Its schema is one of two forms, and "matched none" says neither.
		return InvalidDecisionDate(d.Value)
	case d.Message == validation.MsgUnexpectedProperty:
		// The location ends with the extra key; Value is the parent.
		item.Type, item.Msg = "extra_forbidden", "Extra inputs are not permitted"
		if parent, ok := d.Value.(map[string]any); ok && len(loc) > 0 {
			if key, ok := loc[len(loc)-1].(string); ok {
				item.Input = parent[key]
			}
		}
	default:
		if name, missing := pydantic.Missing(d.Message); missing {
			// The location is the parent; the name is only in the message.
			item.Type, item.Msg, item.Loc = "missing", "Field required", append(loc, name)
		} else if typ, msg, ok := pydantic.Message(d.Message); ok {
			item.Type, item.Msg = typ, msg
		}
	}
	return item
}

// Log returns the request's logger, carrying its request id, or the
// default logger outside a request.
func Log(ctx interface{ Value(any) any }) *slog.Logger {
	if st := stateFrom(ctx); st != nil {
		return st.log()
	}
	return slog.Default()
}

// TransformSchema documents that a refusal may add members of its own to
// a Problem: the presence-polarity gate's field, criterion, witness and
// findings; a refused promotion's failures. Clients read the members they
// know and ignore the rest.
func (Problem) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	s.AdditionalProperties = true
	return s
}

// InvalidDecisionDate is the 422 item of a decision_date (see
// resource.DecisionDate) that is no
// calendar date, saying which forms are accepted: the reader's own, and
// the schema's (a value of neither form, such as true or 1.5).
func InvalidDecisionDate(input any) ValidationItem {
	return ValidationItem{Type: "date_from_datetime_parsing", Loc: []any{"body", "decision_date"},
		Msg: "Input should be a calendar date: an ISO YYYY-MM-DD string or an integer ordinal from 1 (0001-01-01) to 3652059 (9999-12-31)", Input: input}
}

// RefusalRulebookEmpty is declared by the operations that evaluate or
// compare a rulebook's composition (/decide, the rulebook diff), which a
// draft with no sections does not have (catalog.ErrRulebookEmpty).
var RefusalRulebookEmpty = Refusal{http.StatusUnprocessableEntity, ReasonRulebookEmpty,
	"the rulebook is a draft with no sections yet: there is nothing to decide or compare; add its ruleset_refs first."}

// RefusalDiffUndecided is declared by every operation that diffs two
// versions with the solver (verify.Diff), which answers DiffUndecided when
// the solver runs out of its time bound.
var RefusalDiffUndecided = Refusal{http.StatusUnprocessableEntity, ReasonDiffUndecided,
	"the solver could not decide within its time bound (10 s); nothing is known about the difference."}

// DiffUndecided is the answer of a diff the solver could not settle (err),
// logged with what was compared (attrs, as slog takes them).
func DiffUndecided(ctx context.Context, err error, attrs ...any) error {
	Log(ctx).WarnContext(ctx, "diff undecided", append(attrs, "error", err)...)
	return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonDiffUndecided,
		"The solver could not decide the difference within its time bound.")
}
