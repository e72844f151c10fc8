// Package llmtest plays a scripted language model for tests: a real HTTP
// server on a local socket that speaks the OpenAI chat completions
// protocol, so the code under test uses its real client, real headers and
// real timeouts, and only the model's answers are made up.
//
//	srv := llmtest.NewServer(t, llmtest.Turn{Reply: "rule ..."}, llmtest.Turn{Status: 429})
//	model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL()})
//
// Each request consumes the next Turn; Requests tells what was asked.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/authoring/llm"
)

// Turn is the server's answer to one request, in the order requests come.
type Turn struct {
	// Reply is the assistant's content in a 200 chat.completion answer.
	// An empty Reply (with no Status or Body) answers 200 with empty
	// content, which a client must treat as an invalid response.
	Reply string
	// Status, when not zero, is the HTTP status to answer with instead.
	// A status of 400 or more without a Body sends an OpenAI-style error
	// object ({"error":{"message","type","code"}}); a 2xx status without a
	// Body sends the Reply completion with that status.
	Status int
	// Body, when not empty, is sent as is with Status (200 if Status is
	// zero): to script malformed answers, other providers' error shapes,
	// or a provider echoing the key. It is labelled application/json when
	// it starts with '{' or '[', text/plain otherwise.
	Body string
	// Hang makes the server answer nothing until the request's context is
	// done (the client timed out or was cancelled) or the test ends.
	Hang bool
	// Check, when set, inspects the request before it is answered. It runs
	// on the server's goroutine: use t.Errorf there, never t.Fatal.
	Check func(r Recorded)
}

// Recorded is what the server saw of one request.
type Recorded struct {
	// Model is the request's "model".
	Model string
	// Messages are the request's messages, with content parts joined.
	Messages []llm.Message
	// MaxTokens is max_completion_tokens (or max_tokens), zero if absent.
	MaxTokens int
	// Authorization is the Authorization header as received, e.g.
	// "Bearer sk-...": tests check the key went there and nowhere else.
	Authorization string
	// Header is a copy of all request headers, for checking that nothing
	// else (organisation, project, custom headers) was sent.
	Header http.Header
}

// Server is the scripted model; build it with NewServer. Its methods are
// safe for concurrent use.
type Server struct {
	t    testing.TB
	srv  *httptest.Server
	done chan struct{} // closed when the test ends, to release Hang turns

	mu       sync.Mutex
	turns    []Turn
	requests []Recorded
}

// NewServer starts a server that will answer with turns, in order, and
// closes it when the test ends. A request beyond the script is answered
// 500 and fails the test.
func NewServer(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s := &Server{t: t, done: make(chan struct{}), turns: append([]Turn(nil), turns...)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", s.complete)
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.done) // before Close, which waits for hanging handlers
		s.srv.Close()
	})
	return s
}

// URL is the base URL to configure a client with: the server's address
// with the /v1 API prefix, as for the real provider.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Append adds turns to the end of the script, for tests that decide the
// next answer after seeing the first requests.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// wireRequest is the part of a chat completion request the server reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
	MaxTokens           int `json:"max_tokens"`
}

// complete answers POST /chat/completions with the next turn.
func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	var req wireRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.t.Errorf("llmtest: request body is not a chat completion request: %v", err)
		writeError(w, http.StatusBadRequest, "malformed request body")
		return
	}
	rec := Recorded{
		Model:         req.Model,
		MaxTokens:     max(req.MaxCompletionTokens, req.MaxTokens),
		Authorization: r.Header.Get("Authorization"),
		Header:        r.Header.Clone(),
	}
	for _, m := range req.Messages {
		rec.Messages = append(rec.Messages, llm.Message{Role: m.Role, Content: contentText(m.Content)})
	}

	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, rec)
	var turn Turn
	left := len(s.turns) > 0
	if left {
		turn, s.turns = s.turns[0], s.turns[1:]
	}
	s.mu.Unlock()

	if !left {
		s.t.Errorf("llmtest: unexpected request %d (model %q): no scripted turn left", n+1, rec.Model)
		writeError(w, http.StatusInternalServerError, "llmtest: no scripted turn left")
		return
	}
	if turn.Check != nil {
		turn.Check(rec)
	}
	switch {
	case turn.Hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	case turn.Body != "":
		status := turn.Status
		if status == 0 {
			status = http.StatusOK
		}
		contentType := "text/plain; charset=utf-8"
		if b := strings.TrimSpace(turn.Body); strings.HasPrefix(b, "{") || strings.HasPrefix(b, "[") {
			contentType = "application/json"
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(turn.Body))
	case turn.Status >= 400:
		writeError(w, turn.Status, http.StatusText(turn.Status))
	default:
		status := turn.Status
		if status == 0 {
			status = http.StatusOK
		}
		writeJSON(w, status, completion(rec, turn.Reply, n+1))
	}
}

// contentText reads a message's content, a string or an array of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// completion is a chat.completion object answering rec with content.
// Usage is a stand-in (a token per four bytes), enough to check that usage
// is carried through.
func completion(rec Recorded, content string, n int) map[string]any {
	prompt := 0
	for _, m := range rec.Messages {
		prompt += len(m.Content)
	}
	promptTokens, completionTokens := prompt/4, len(content)/4
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   rec.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{
			"prompt_tokens":     promptTokens,
			"completion_tokens": completionTokens,
			"total_tokens":      promptTokens + completionTokens,
		},
	}
}

// errorTypes are the error "type" and "code" OpenAI sends with a status.
var errorTypes = map[int][2]string{
	http.StatusBadRequest:      {"invalid_request_error", "invalid_request"},
	http.StatusUnauthorized:    {"invalid_request_error", "invalid_api_key"},
	http.StatusForbidden:       {"invalid_request_error", "unsupported_country_region_territory"},
	http.StatusNotFound:        {"invalid_request_error", "model_not_found"},
	http.StatusTooManyRequests: {"requests", "rate_limit_exceeded"},
}

// writeError sends an OpenAI-style error object.
func writeError(w http.ResponseWriter, status int, message string) {
	kind, ok := errorTypes[status]
	switch {
	case ok:
	case status >= 500:
		kind = [2]string{"server_error", "server_error"}
	default:
		kind = [2]string{"invalid_request_error", "invalid_request"}
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": message, "type": kind[0], "param": nil, "code": kind[1],
	}})
}

// writeJSON sends v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
