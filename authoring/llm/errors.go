package llm

import (
	"errors"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reasons a model call fails, as ProviderError.Reason. They are the
// reason_code values a generation reports, so a caller can branch on them
// (retry, ask for another key, fix the model name) without reading text.
const (
	// ReasonAuthFailed: the provider refused the key (HTTP 401 or 403).
	// Not retryable: the caller must bring a valid key.
	ReasonAuthFailed = "provider_auth_failed"
	// ReasonRateLimited: the provider throttled the key (HTTP 429).
	// Retryable, after a pause.
	ReasonRateLimited = "provider_rate_limited"
	// ReasonUnavailable: the provider could not be reached or failed on its
	// side (HTTP 5xx, connection refused or reset, DNS). Retryable.
	ReasonUnavailable = "provider_unavailable"
	// ReasonTimeout: no answer within the configured timeout or the
	// caller's deadline (also HTTP 408). Retryable.
	ReasonTimeout = "provider_timeout"
	// ReasonModelUnknown: the provider does not serve the requested model
	// (HTTP 404). Not retryable: the model name must change.
	ReasonModelUnknown = "provider_model_unknown"
	// ReasonBadRequest: the provider rejected the request (any other 4xx,
	// such as a prompt beyond the model's context). Not retryable as is.
	ReasonBadRequest = "provider_bad_request"
	// ReasonResponseInvalid: the provider answered 2xx with something that
	// is not a usable completion (not JSON, no choices, empty content, a
	// refusal). Retryable: models are not deterministic.
	ReasonResponseInvalid = "provider_response_invalid"
	// ReasonCancelled: the caller cancelled the request's context. Not
	// retryable: nobody is waiting for the answer.
	ReasonCancelled = "provider_cancelled"
)

// ErrNoKey is returned by Complete when the Key is empty: the service has
// no key of its own to fall back on, so the request cannot be made.
var ErrNoKey = errors.New("llm: no provider key")

// ErrInvalidRequest wraps the errors Complete returns for a Request that is
// wrong before it leaves the process (no model, no messages, an unknown
// role): a bug in the caller, not a provider failure.
var ErrInvalidRequest = errors.New("llm: invalid request")

// ProviderError is how every failure of a model call is reported: a stable
// Reason for code to branch on, whether trying again may help, and the
// provider's own words made safe to show, log and store (see Sanitise).
// It carries no request, response or header, so printing it in any form
// cannot leak the key.
type ProviderError struct {
	// Reason is one of the Reason* constants.
	Reason string
	// Retryable says whether the same request may succeed later (rate
	// limits, outages, timeouts, a bad completion). The client makes one
	// attempt; retrying is the caller's decision.
	Retryable bool
	// Status is the provider's HTTP status, or 0 when no response arrived
	// (connection failure, timeout, cancellation).
	Status int
	// Message is the provider's explanation (or the transport error),
	// sanitised: at most MaxMessageBytes, no control characters, the key
	// and anything that looks like a key replaced by "[redacted]".
	Message string

	// cause is the context error behind ReasonCancelled and ReasonTimeout,
	// so errors.Is(err, context.Canceled) works; nil otherwise.
	cause error
}

// Error gives the reason followed by the sanitised message.
func (e *ProviderError) Error() string {
	if e.Message == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Message
}

// Unwrap returns context.Canceled or context.DeadlineExceeded for a
// cancelled or timed-out call, so callers can use errors.Is as with any
// context-aware call; it returns nil for every other failure.
func (e *ProviderError) Unwrap() error { return e.cause }

// MaxMessageBytes bounds ProviderError.Message: enough for a provider's
// explanation, too little to carry a whole HTML error page or a prompt
// echoed back into a log or a status response.
const MaxMessageBytes = 300

// maxScanBytes bounds how much provider text Sanitise looks at beyond the
// key itself (which is removed from the whole text first).
const maxScanBytes = 8 << 10

var (
	// bearerToken matches an echoed Authorization value.
	bearerToken = regexp.MustCompile(`(?i)\bbearer\s+[^\s"',;]+`)
	// skToken matches OpenAI-style keys (sk-..., sk-proj-..., sk-ant-...)
	// including the masked form providers print ("sk-proj-****abcd").
	skToken = regexp.MustCompile(`\bsk-[A-Za-z0-9_*\-]{4,}`)
	// spaces collapses the runs left by removed line breaks.
	spaces = regexp.MustCompile(`\s{2,}`)
)

// Sanitise makes provider text safe to keep: in an error message, a log
// line, a job's status. A provider (or a proxy in front of it) may echo the
// key it was sent, its Authorization header, or other keys; may send
// control characters that forge log lines or bidi marks that disguise
// text; and may send a whole HTML page. Sanitise replaces the key, any
// Bearer token and any sk-... token with "[redacted]", drops invalid UTF-8
// and control and format characters (line breaks and tabs become spaces),
// and cuts the result to at most MaxMessageBytes at a character boundary,
// ending "..." when cut.
func Sanitise(text string, key Key) string {
	secret := key.Reveal()
	if secret != "" {
		// The whole text first: a cut below must not split an echo of the
		// key and leave its beginning behind.
		text = strings.ReplaceAll(text, secret, redacted)
	}
	if len(text) > maxScanBytes {
		text = text[:maxScanBytes]
	}
	text = strings.ToValidUTF8(text, "")
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, text)
	if secret != "" {
		// Again: removing a control character may have joined the key.
		text = strings.ReplaceAll(text, secret, redacted)
	}
	text = bearerToken.ReplaceAllString(text, "Bearer "+redacted)
	text = skToken.ReplaceAllString(text, redacted)
	text = strings.TrimSpace(spaces.ReplaceAllString(text, " "))
	return truncate(text, MaxMessageBytes)
}

// truncate cuts text to at most n bytes without splitting a character,
// marking a cut with "...".
func truncate(text string, n int) string {
	if len(text) <= n {
		return text
	}
	const mark = "..."
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + mark
}
