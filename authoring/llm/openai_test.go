package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/llm/llmtest"
)

// sentinel is the caller's key in these tests; no error may contain it.
const sentinel = "sk-proj-SENTINEL-4d1e8b7c09fa"

var key = llm.NewKey(sentinel)

// request is a small valid request.
func request() llm.Request {
	return llm.Request{
		Model: "gpt-4.1-mini",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You write eligibility rules."},
			{Role: llm.RoleUser, Content: "Employed 12 months."},
			{Role: llm.RoleAssistant, Content: "rule eligible ..."},
			{Role: llm.RoleUser, Content: "Test 3 failed; fix it."},
		},
		MaxTokens: 4000,
	}
}

// setup starts a scripted server and a client for it.
func setup(t *testing.T, turns ...llmtest.Turn) (*llmtest.Server, *llm.OpenAI) {
	t.Helper()
	srv := llmtest.NewServer(t, turns...)
	return srv, llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL(), Timeout: 10 * time.Second})
}

// providerError asserts err is a *ProviderError with reason and
// retryable, and that no form of it carries the key.
func providerError(t *testing.T, err error, reason string, retryable bool) *llm.ProviderError {
	t.Helper()
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *ProviderError %s", err, err, reason)
	}
	if pe.Reason != reason || pe.Retryable != retryable {
		t.Errorf("error = %+v, want reason %s retryable %v", pe, reason, retryable)
	}
	for _, form := range []string{err.Error(), pe.Message, fmt.Sprintf("%+v", pe), fmt.Sprintf("%#v", pe)} {
		if strings.Contains(form, sentinel) || strings.Contains(form, "SENTINEL") {
			t.Errorf("the error leaks the key: %s", form)
		}
	}
	return pe
}

func TestCompleteSuccess(t *testing.T) {
	t.Parallel()
	srv, model := setup(t, llmtest.Turn{Reply: "rule eligible when months >= 12"})
	res, err := model.Complete(context.Background(), key, request())
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "rule eligible when months >= 12" || res.FinishReason != "stop" {
		t.Errorf("response = %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Authorization != "Bearer "+sentinel {
		t.Errorf("Authorization = %q, want the caller's key as a bearer token", got.Authorization)
	}
	if got.Model != "gpt-4.1-mini" || got.MaxTokens != 4000 || !slices.Equal(got.Messages, request().Messages) {
		t.Errorf("request seen = %+v", got)
	}
	prompt := 0
	for _, m := range request().Messages {
		prompt += len(m.Content)
	}
	if res.PromptTokens != prompt/4 || res.CompletionTokens != len(res.Content)/4 {
		t.Errorf("usage = %d + %d, want %d + %d", res.PromptTokens, res.CompletionTokens, prompt/4, len(res.Content)/4)
	}
	// The key travels in the Authorization header and nowhere else.
	for name, values := range got.Header {
		if name != "Authorization" && strings.Contains(strings.Join(values, " "), sentinel) {
			t.Errorf("header %s carries the key", name)
		}
	}
}

// The SDK's OPENAI_* environment is ignored: base URL, key, organisation,
// project and custom headers all come from the call alone.
func TestCompleteIgnoresEnvironment(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Env-Leak: yes")
	srv, model := setup(t, llmtest.Turn{Reply: "ok"})
	if _, err := model.Complete(context.Background(), key, request()); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer "+sentinel {
		t.Errorf("Authorization = %q", h.Get("Authorization"))
	}
	for _, name := range []string{"OpenAI-Organization", "OpenAI-Project", "X-Env-Leak"} {
		if v := h.Get(name); v != "" {
			t.Errorf("header %s = %q came from the environment", name, v)
		}
	}
}

// Each error status maps to its reason and retryability, with the
// provider's message kept.
func TestCompleteStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status    int
		reason    string
		retryable bool
	}{
		{401, llm.ReasonAuthFailed, false},
		{403, llm.ReasonAuthFailed, false},
		{404, llm.ReasonModelUnknown, false},
		{429, llm.ReasonRateLimited, true},
		{400, llm.ReasonBadRequest, false},
		{422, llm.ReasonBadRequest, false},
		{408, llm.ReasonTimeout, true},
		{500, llm.ReasonUnavailable, true},
		{502, llm.ReasonUnavailable, true},
		{503, llm.ReasonUnavailable, true},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			_, model := setup(t, llmtest.Turn{Status: tc.status})
			_, err := model.Complete(context.Background(), key, request())
			pe := providerError(t, err, tc.reason, tc.retryable)
			if pe.Status != tc.status || pe.Message != http.StatusText(tc.status) {
				t.Errorf("status %d, message %q", pe.Status, pe.Message)
			}
		})
	}
}

// A provider that echoes the key, in any error shape, does not get it into
// the error.
func TestCompleteKeyEchoed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		turn   llmtest.Turn
		reason string
		want   string // the sanitised message
	}{
		{"openai 401", llmtest.Turn{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + sentinel + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
			llm.ReasonAuthFailed, "Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys."},
		{"ollama string error", llmtest.Turn{Status: 404, Body: `{"error":"model \"x\" not found for key ` + sentinel + `"}`},
			llm.ReasonModelUnknown, `model "x" not found for key [redacted]`},
		{"fastapi detail", llmtest.Turn{Status: 400, Body: `{"detail":"bad header Authorization: Bearer ` + sentinel + `"}`},
			llm.ReasonBadRequest, "bad header Authorization: Bearer [redacted]"},
		{"plain text proxy", llmtest.Turn{Status: 502, Body: "upstream rejected\nAuthorization: Bearer " + sentinel + "\n"},
			llm.ReasonUnavailable, "upstream rejected Authorization: Bearer [redacted]"},
		{"long html", llmtest.Turn{Status: 503, Body: "<html>" + strings.Repeat("<p>busy</p>", 100) + sentinel + "</html>"},
			llm.ReasonUnavailable, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, model := setup(t, tc.turn)
			_, err := model.Complete(context.Background(), key, request())
			pe := providerError(t, err, tc.reason, tc.reason == llm.ReasonUnavailable)
			if tc.want != "" && pe.Message != tc.want {
				t.Errorf("message = %q, want %q", pe.Message, tc.want)
			}
			if len(pe.Message) > llm.MaxMessageBytes {
				t.Errorf("message of %d bytes", len(pe.Message))
			}
		})
	}
}

// A 200 that is not a usable completion is a retryable invalid response.
func TestCompleteInvalidResponse(t *testing.T) {
	t.Parallel()
	for name, turn := range map[string]llmtest.Turn{
		"empty content":  {Reply: ""},
		"blank content":  {Reply: " \n "},
		"no choices":     {Body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`},
		"refusal":        {Body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I cannot help"}}]}`},
		"malformed json": {Body: `{"id":"x","choices":[`},
		"not json":       {Body: "<html>hello</html>"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, model := setup(t, turn)
			_, err := model.Complete(context.Background(), key, request())
			pe := providerError(t, err, llm.ReasonResponseInvalid, true)
			if pe.Status != http.StatusOK {
				t.Errorf("status %d", pe.Status)
			}
		})
	}
}

// A provider that never answers is cut off by the client's timeout.
func TestCompleteTimeout(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Hang: true})
	model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL(), Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := model.Complete(context.Background(), key, request())
	pe := providerError(t, err, llm.ReasonTimeout, true)
	if elapsed := time.Since(start); elapsed < 200*time.Millisecond || elapsed > 5*time.Second {
		t.Errorf("gave up after %v, want about 200ms", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) || pe.Status != 0 {
		t.Errorf("error = %#v, want one wrapping context.DeadlineExceeded", pe)
	}
}

// The caller's own deadline is a timeout too; the HTTP client's timeout as
// well.
func TestCompleteCallerDeadline(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Turn{Hang: true}, llmtest.Turn{Hang: true})
	model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL()})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := model.Complete(ctx, key, request())
	providerError(t, err, llm.ReasonTimeout, true)

	model = llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL(), HTTPClient: &http.Client{Timeout: 150 * time.Millisecond}})
	_, err = model.Complete(context.Background(), key, request())
	providerError(t, err, llm.ReasonTimeout, true)
}

// A caller that cancels gets provider_cancelled, not a provider fault.
func TestCompleteCancelled(t *testing.T) {
	t.Parallel()
	srv, model := setup(t, llmtest.Turn{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := model.Complete(ctx, key, request())
	providerError(t, err, llm.ReasonCancelled, false)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests, want 1", len(srv.Requests()))
	}
}

// Nobody listening is provider_unavailable, and the message names the
// failure without the URL.
func TestCompleteConnectionRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://" + addr + "/v1"})
	_, err = model.Complete(context.Background(), key, request())
	pe := providerError(t, err, llm.ReasonUnavailable, true)
	if !strings.Contains(pe.Message, "refused") || strings.Contains(pe.Message, "/v1") || strings.Contains(pe.Message, addr) {
		t.Errorf("message = %q", pe.Message)
	}
	// A host name that does not resolve: the server's resolver is not
	// named either.
	model = llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://no-such-host.invalid/v1"})
	_, err = model.Complete(context.Background(), key, request())
	pe = providerError(t, err, llm.ReasonUnavailable, true)
	if pe.Message != "the provider's host name could not be resolved" {
		t.Errorf("unresolvable host: message = %q", pe.Message)
	}
}

// Requests that cannot be right are refused before anything is sent.
func TestCompleteRefusesLocally(t *testing.T) {
	t.Parallel()
	srv, model := setup(t)
	if _, err := model.Complete(context.Background(), llm.Key{}, request()); !errors.Is(err, llm.ErrNoKey) {
		t.Errorf("empty key: %v", err)
	}
	for name, mutate := range map[string]func(*llm.Request){
		"no model":    func(r *llm.Request) { r.Model = " " },
		"no messages": func(r *llm.Request) { r.Messages = nil },
		"bad role":    func(r *llm.Request) { r.Messages[1].Role = "tool" },
		"negative":    func(r *llm.Request) { r.MaxTokens = -1 },
	} {
		req := request()
		mutate(&req)
		if _, err := model.Complete(context.Background(), key, req); !errors.Is(err, llm.ErrInvalidRequest) {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "localhost:8080"})
	_, err := bad.Complete(context.Background(), key, request())
	providerError(t, err, llm.ReasonUnavailable, false)
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// Concurrent calls with different keys each send their own key, and a
// server answering more turns later (Append) is followed in order.
func TestCompleteConcurrentKeys(t *testing.T) {
	t.Parallel()
	srv, model := setup(t)
	const n = 8
	for range n {
		srv.Append(llmtest.Turn{Reply: "ok"})
	}
	var wg sync.WaitGroup
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("Bearer sk-team-%d-secret", i)
		wg.Go(func() {
			if _, err := model.Complete(context.Background(), llm.NewKey(fmt.Sprintf("sk-team-%d-secret", i)), request()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Authorization)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Authorization headers %v, want %v", got, want)
	}
}

// Turn.Check sees each request before it is answered, and the /v1 prefix
// is optional as for self-hosted servers.
func TestServerCheckAndPaths(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex // Check runs on the server's goroutine
		seen []string
	)
	check := func(r llmtest.Recorded) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Model)
	}
	srv := llmtest.NewServer(t, llmtest.Turn{Reply: "one", Check: check}, llmtest.Turn{Reply: "two", Check: check})
	for _, base := range []string{srv.URL(), strings.TrimSuffix(srv.URL(), "/v1")} {
		model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: base})
		if _, err := model.Complete(context.Background(), key, request()); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{"gpt-4.1-mini", "gpt-4.1-mini"}) {
		t.Errorf("Check saw %v", seen)
	}
}

// Model is satisfied by OpenAI.
var _ llm.Model = (*llm.OpenAI)(nil)
