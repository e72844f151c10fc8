package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestWorkDeadlineAnswersBeforeTheWriteTimeout: work that runs long (here
// a handler that waits out its context, then tries to write) is stopped at
// the work deadline, writes nothing, and its caller gets 503
// work_deadline_exceeded with a Retry-After, before the write timeout
// would close the connection with no answer. Before the work deadline, the
// caller saw the connection close while the server went on and committed,
// so a retry duplicated the work.
func TestWorkDeadlineAnswersBeforeTheWriteTimeout(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	s := newServer(t, Config{WriteTimeout: 2 * time.Second, Logger: slog.New(slog.DiscardHandler),
		Metering: metering.Config{Budgets: metering.UniformBudgets(1 << 40)}}, store.New(pool))
	if got, want := s.cfg.WorkTimeout, 1500*time.Millisecond; got != want {
		t.Errorf("work timeout %v for a 2s write timeout, want %v", got, want)
	}
	Register(s, Route{OperationID: "test-slow", Method: http.MethodPost, Path: "/test/slow",
		Summary: "Slow operation", Description: "Works until its deadline, then writes.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassDecide},
		func(ctx context.Context, _ *struct{}) (*callerOutput, error) {
			<-ctx.Done()
			_, err := pool.Exec(ctx, "CREATE TABLE written_after_the_deadline (x int)")
			return nil, err
		})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	res, err := http.Post(srv.URL+RootPath+"/test/slow", "application/json", nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var got struct {
		Detail Problem `json:"detail"`
	}
	if err := json.Unmarshal(body, &got); err != nil || res.StatusCode != http.StatusServiceUnavailable ||
		got.Detail.ReasonCode != ReasonWorkTimeout || res.Header.Get("Retry-After") != "30" {
		t.Fatalf("%d %s (Retry-After %q)", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
	var written *string
	if err := pool.QueryRow(context.Background(), "SELECT to_regclass('written_after_the_deadline')::text").Scan(&written); err != nil {
		t.Fatal(err)
	}
	if written != nil {
		t.Error("the work wrote after its deadline")
	}
}
