package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// DefaultBaseURL is OpenAI's API, used when OpenAIConfig.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultTimeout bounds one call when OpenAIConfig.Timeout is zero: a long
// prompt to a reasoning model can take minutes, but a hung provider must
// not hold a generation job forever.
const DefaultTimeout = 5 * time.Minute

// maxErrorBody bounds how much of a provider's error response is read.
const maxErrorBody = 64 << 10

// OpenAIConfig says where and how OpenAI reaches the provider. It holds no
// key: keys come with each call.
type OpenAIConfig struct {
	// BaseURL is the OpenAI-compatible API root, including its version
	// path: "https://api.openai.com/v1" (the default when empty), or an
	// agency's own vLLM, Ollama or llama.cpp server ("http://host:11434/v1").
	BaseURL string
	// Timeout bounds each call, from sending the request to reading the
	// whole answer. Zero means DefaultTimeout; the caller's context may end
	// the call sooner.
	Timeout time.Duration
	// HTTPClient sends the requests; nil means a shared client on
	// http.DefaultTransport. Set it to use a proxy, custom TLS roots, or a
	// test transport.
	HTTPClient *http.Client
}

// defaultHTTPClient is shared by every OpenAI without its own client, so
// connections to the provider are reused across calls.
var defaultHTTPClient = &http.Client{}

// OpenAI is the Model that speaks the OpenAI chat completions protocol.
// Every call passes the base URL, the caller's key, the HTTP client and
// zero retries explicitly, so nothing is taken from the OPENAI_*
// environment variables the SDK otherwise reads, and no call is repeated
// behind the caller's back. It is safe for concurrent use.
type OpenAI struct {
	baseURL string
	timeout time.Duration
	client  *http.Client
	chat    openai.ChatCompletionService
	// err is a configuration error found by NewOpenAI, returned by every
	// call (NewOpenAI itself does not fail, so wiring stays simple).
	err error
}

// NewOpenAI builds the client for cfg. A BaseURL that is not an absolute
// http or https URL makes every Complete fail with a non-retryable
// ReasonUnavailable ProviderError that says so.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	o := &OpenAI{
		baseURL: cfg.BaseURL,
		timeout: cfg.Timeout,
		client:  cfg.HTTPClient,
		// Built from no options: openai.NewClient would add the OPENAI_*
		// environment (organisation, project, custom headers, base URL).
		chat: openai.NewChatCompletionService(),
	}
	if o.baseURL == "" {
		o.baseURL = DefaultBaseURL
	}
	if o.timeout <= 0 {
		o.timeout = DefaultTimeout
	}
	if o.client == nil {
		o.client = defaultHTTPClient
	}
	if u, err := url.Parse(o.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		o.err = &ProviderError{Reason: ReasonUnavailable, Message: "the configured provider base URL is not an absolute http(s) URL"}
	}
	return o
}

// Complete sends req to the provider with key and returns the first
// choice. See Model for the errors.
func (o *OpenAI) Complete(ctx context.Context, key Key, req Request) (Response, error) {
	if key.Empty() {
		return Response{}, ErrNoKey
	}
	params, err := chatParams(req)
	if err != nil {
		return Response{}, err
	}
	if o.err != nil {
		return Response{}, o.err
	}
	callCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	var (
		httpRes *http.Response
		body    []byte
	)
	// The body is taken raw and decoded here, so that a 200 whose body is
	// not a completion (HTML from a proxy, truncated JSON) is told apart
	// from a connection that broke while the body was read.
	_, err = o.chat.New(callCtx, params,
		option.WithBaseURL(o.baseURL),
		option.WithAPIKey(key.Reveal()),
		option.WithHTTPClient(o.client),
		option.WithMaxRetries(0),
		option.WithResponseInto(&httpRes),
		option.WithResponseBodyInto(&body),
	)
	if err != nil {
		return Response{}, classify(ctx, callCtx, httpRes, err, key)
	}
	var completion openai.ChatCompletion
	if err := json.Unmarshal(body, &completion); err != nil {
		return Response{}, invalid("the response is not a chat completion: " + Sanitise(err.Error(), key))
	}
	return response(&completion, key)
}

// chatParams turns req into the SDK's parameters, refusing what no
// provider could answer.
func chatParams(req Request) (openai.ChatCompletionNewParams, error) {
	var p openai.ChatCompletionNewParams
	if strings.TrimSpace(req.Model) == "" {
		return p, fmt.Errorf("%w: no model", ErrInvalidRequest)
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("%w: no messages", ErrInvalidRequest)
	}
	if req.MaxTokens < 0 {
		return p, fmt.Errorf("%w: negative MaxTokens %d", ErrInvalidRequest, req.MaxTokens)
	}
	p.Model = req.Model
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleAssistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			return p, fmt.Errorf("%w: message %d has role %q (want system, user or assistant)", ErrInvalidRequest, i, m.Role)
		}
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	return p, nil
}

// response takes the first choice of a successful call, refusing an
// answer that carries no text.
func response(c *openai.ChatCompletion, key Key) (Response, error) {
	if len(c.Choices) == 0 {
		return Response{}, invalid("the response has no choices")
	}
	choice := c.Choices[0]
	if strings.TrimSpace(choice.Message.Content) == "" {
		if choice.Message.Refusal != "" {
			return Response{}, invalid("the model refused: " + Sanitise(choice.Message.Refusal, key))
		}
		return Response{}, invalid("the response has empty content (finish_reason " + Sanitise(choice.FinishReason, key) + ")")
	}
	return Response{
		Content:          choice.Message.Content,
		PromptTokens:     int(c.Usage.PromptTokens),
		CompletionTokens: int(c.Usage.CompletionTokens),
		FinishReason:     choice.FinishReason,
	}, nil
}

// invalid is a ReasonResponseInvalid error for a 200 answer.
func invalid(msg string) *ProviderError {
	return &ProviderError{Reason: ReasonResponseInvalid, Retryable: true, Status: http.StatusOK, Message: msg}
}

// classify maps a failed call to a ProviderError. The order matters: the
// caller's context first (a cancellation is not the provider's fault),
// then this call's timeout, then the provider's status; anything else is
// the connection failing (refused, reset, broken while the body was read).
func classify(ctx, callCtx context.Context, res *http.Response, err error, key Key) *ProviderError {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return &ProviderError{Reason: ReasonCancelled, Message: "the request was cancelled", cause: context.Canceled}
	case ctx.Err() != nil:
		return timedOut("the caller's deadline passed before the provider answered")
	case callCtx.Err() != nil:
		return timedOut("the provider did not answer within the timeout")
	}
	if res != nil && res.StatusCode >= 400 {
		return statusError(res.StatusCode, providerText(res), key)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return statusError(apiErr.StatusCode, apiErr.Message, key)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return timedOut("the provider did not answer within the HTTP client's timeout")
	}
	return &ProviderError{Reason: ReasonUnavailable, Retryable: true, Message: Sanitise(transportText(err), key)}
}

// timedOut is a ReasonTimeout error.
func timedOut(msg string) *ProviderError {
	return &ProviderError{Reason: ReasonTimeout, Retryable: true, Message: msg, cause: context.DeadlineExceeded}
}

// statusError maps an HTTP error status to its reason.
func statusError(status int, text string, key Key) *ProviderError {
	e := &ProviderError{Status: status, Message: Sanitise(text, key)}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Reason = ReasonAuthFailed
	case status == http.StatusTooManyRequests:
		e.Reason, e.Retryable = ReasonRateLimited, true
	case status == http.StatusRequestTimeout:
		e.Reason, e.Retryable = ReasonTimeout, true
	case status == http.StatusNotFound:
		e.Reason = ReasonModelUnknown
	case status >= 500:
		e.Reason, e.Retryable = ReasonUnavailable, true
	default:
		e.Reason = ReasonBadRequest
	}
	return e
}

// providerText is the explanation in an error response: OpenAI's
// {"error":{"message":...}}, Ollama's {"error":"..."}, FastAPI's
// {"detail":...}, a bare {"message":...}, or else the body as text.
func providerText(res *http.Response) string {
	if res.Body == nil {
		return ""
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	_ = res.Body.Close()
	var v struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		for _, raw := range []json.RawMessage{v.Error, v.Detail, v.Message} {
			if text := jsonText(raw); text != "" {
				return text
			}
		}
	}
	return string(body)
}

// jsonText reads a JSON string, or the "message" of a JSON object, or
// falls back to the JSON itself; "" for nothing.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return string(raw)
}

// transportText describes a transport failure in a fixed phrase: never
// the request URL (configuration, and it could carry a proxy's
// credentials) nor the addresses of the server's own network (its
// resolver, its interfaces), which a caller has no business seeing.
func transportText(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return "the provider's host name could not be resolved"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return "the connection to the provider broke before it answered"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "the provider could not be reached (connection refused or unreachable)"
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return "the provider could not be reached (" + urlErr.Op + ")"
	}
	return "the provider could not be reached"
}
