package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// holdInput's Hold makes the handler wait for the test's release.
type holdInput struct {
	Body struct {
		Hold bool   `json:"hold"`
		Pad  string `json:"pad"`
	}
}

// TestLargeBodiesShareABoundedBudget: large bodies reserve their size from
// the process's body memory, so however many connections send them, the
// bytes held at once stay within it; one that finds it full is answered
// 503 server_busy without being read, and is served once room is free.
// Small bodies (a /decide) never wait for it.
func TestLargeBodiesShareABoundedBudget(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	s := newServer(t, Config{KeyedBodyLimit: AnonymousBodyLimit, BodyMemory: AnonymousBodyLimit, Logger: slog.New(slog.DiscardHandler),
		Metering: metering.Config{Budgets: metering.UniformBudgets(1 << 40)}}, st)
	held, release := make(chan struct{}), make(chan struct{})
	Register(s, Route{OperationID: "test-hold", Method: http.MethodPost, Path: "/test/hold",
		Summary: "Holds its body", Description: "Waits until released.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassDecide},
		func(ctx context.Context, in *holdInput) (*callerOutput, error) {
			if in.Body.Hold {
				held <- struct{}{}
				<-release
			}
			return &callerOutput{}, nil
		})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	post := func(hold bool, size int) (int, string) {
		body, _ := json.Marshal(map[string]any{"hold": hold, "pad": string(bytes.Repeat([]byte("x"), size))})
		res, err := http.Post(srv.URL+RootPath+"/test/hold", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	first := make(chan int, 1)
	go func() { code, _ := post(true, 1_200_000); first <- code }()
	<-held
	if code, body := post(false, 1_200_000); code != http.StatusServiceUnavailable || !bytes.Contains([]byte(body), []byte(ReasonServerBusy)) {
		t.Errorf("a second large body while the first holds the budget: %d %s", code, body)
	}
	if code, body := post(false, 1000); code != http.StatusOK {
		t.Errorf("a small body waited for the large ones' budget: %d %s", code, body)
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the first large body: %d", code)
	}
	if code, body := post(false, 1_200_000); code != http.StatusOK {
		t.Errorf("a large body once the budget is free: %d %s", code, body)
	}
}
