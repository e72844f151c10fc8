package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps Errorf calls instead of failing, so
// the server's own complaints can be checked.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	_ = json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

// A request beyond the script, or to another endpoint, is answered with
// an error and fails the test; a scripted reply is a chat.completion.
func TestServerScript(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	srv := NewServer(rec, Turn{Reply: "hello"})
	body := `{"model":"m1","max_tokens":7,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"bcd"}]}]}`
	status, v := post(t, srv.URL()+"/chat/completions", body)
	choice := v["choices"].([]any)[0].(map[string]any)
	if status != 200 || v["model"] != "m1" || v["object"] != "chat.completion" ||
		choice["message"].(map[string]any)["content"] != "hello" || choice["finish_reason"] != "stop" {
		t.Errorf("reply %d %v", status, v)
	}
	if len(rec.errors()) != 0 {
		t.Errorf("scripted request reported %v", rec.errors())
	}
	if status, _ := post(t, srv.URL()+"/chat/completions", body); status != 500 {
		t.Errorf("unscripted request answered %d", status)
	}
	if status, _ := post(t, srv.URL()+"/embeddings", "{}"); status != 404 {
		t.Errorf("unknown endpoint answered %d", status)
	}
	if errs := rec.errors(); len(errs) != 2 || !strings.Contains(errs[0], "unexpected request 2") {
		t.Errorf("complaints %q", errs)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != "m1" || reqs[0].MaxTokens != 7 || reqs[0].Messages[0].Content != "abcd" {
		t.Errorf("recorded %+v", reqs)
	}
}

// A hanging turn is released when the test ends, so a client without a
// timeout cannot keep the server (and the test binary) from closing.
func TestServerHangReleasedAtCleanup(t *testing.T) {
	t.Parallel()
	done := make(chan int, 1)
	t.Run("hang", func(t *testing.T) {
		srv := NewServer(t, Turn{Hang: true})
		go func() {
			res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
			if err != nil {
				done <- 0
				return
			}
			_ = res.Body.Close()
			done <- res.StatusCode
		}()
		for len(srv.Requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the hanging request outlived its test")
	}
}
