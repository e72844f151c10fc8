package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// childArgsEnv, when set, makes the test binary run `eligo` with the
// JSON-encoded arguments it holds instead of the tests: how a test gets a
// real server process it can kill with SIGKILL.
const childArgsEnv = "ELIGO_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if raw := os.Getenv(childArgsEnv); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			panic(err)
		}
		os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestKilledServerLosesNoAcknowledgedDecision runs `eligo serve` as a child
// process, drives /decide from eight connections, kills the process with
// SIGKILL mid-load, and finds every decision it answered with a 200 in the
// table: a decision is answered only once its record is written (in
// database mode, to the table; in spool mode, to the spool, which a
// restarted serve on the same directory ships), so no crash can lose one
// that a caller was shown.
func TestKilledServerLosesNoAcknowledgedDecision(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"database", "spool"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			killUnderLoad(t, mode)
		})
	}
}

// killUnderLoad is TestKilledServerLosesNoAcknowledgedDecision in one
// decision log mode.
func killUnderLoad(t *testing.T, mode string) {
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	dir := filepath.Join("..", "..", "casebank", "us-fmla-employee")
	if code, out, errOut := eligo(t, "publish", "--database-url", dbURL, "--tenant", "demo",
		filepath.Join(dir, "us-fmla-employee.rules"), "--public", "--slug", "demo/fmla"); code != 0 {
		t.Fatalf("publish exited %d: %q %q", code, out, errOut)
	}
	code, key, errOut := eligo(t, "keys", "create", "--database-url", dbURL, "--tenant", "demo", "--name", "load",
		"--tier", "internal", "--scopes", "decide")
	if code != 0 {
		t.Fatalf("keys create exited %d: %q", code, errOut)
	}
	key = strings.TrimSpace(key)

	spoolDir := t.TempDir()
	args, err := json.Marshal([]string{"serve", "--database-url", dbURL, "--addr", "127.0.0.1:0", "--worker=false",
		"--decision-log-mode", mode, "--decision-spool", spoolDir})
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), childArgsEnv+"="+string(args))
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	root := strings.TrimSpace(strings.TrimPrefix(line, "eligo serving on "))

	var (
		mu           sync.Mutex
		acknowledged []string
		wg           sync.WaitGroup
	)
	killed := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-killed:
					return
				default:
				}
				body := `{"ruleset_id":"demo/fmla","field_values":{"employment.months_employed":` +
					strings.Repeat("1", 1+(w+i)%3) + `}}`
				req, _ := http.NewRequest(http.MethodPost, root+"/decide", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("x-api-key", key)
				id, ok := decisionIDOf(client.Do(req))
				if !ok {
					continue // refused, or cut off by the kill: not acknowledged
				}
				mu.Lock()
				acknowledged = append(acknowledged, id)
				mu.Unlock()
			}
		})
	}
	// Kill once the load is well under way.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(acknowledged)
		mu.Unlock()
		if n >= 300 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d decisions answered in a minute", n)
		}
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	close(killed)
	wg.Wait()

	if mode == "spool" {
		if before, err := store.New(pool).MissingDecisionIDs(ctx, acknowledged); err == nil {
			t.Logf("%d of %d acknowledged decisions were still in the spool when the process was killed", len(before), len(acknowledged))
		}
		// What the killed process spooled but had not shipped, the next
		// serve on its directory ships (at start, and at the latest when
		// it stops).
		startServe(t, "--database-url", dbURL, "--worker=false", "--decision-log-mode", "spool", "--decision-spool", spoolDir).stop(t)
	}
	missing, err := store.New(pool).MissingDecisionIDs(ctx, acknowledged)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("%s mode: %d of %d decisions answered 200 have no record after SIGKILL, e.g. %s", mode, len(missing), len(acknowledged), missing[0])
	}
	t.Logf("%d acknowledged decisions, every one recorded", len(acknowledged))
}

// decisionIDOf reads the decision_id of a 200 /decide answer; ok is false
// for any other outcome (an error status, a connection cut mid-answer).
func decisionIDOf(res *http.Response, err error) (id string, ok bool) {
	if err != nil {
		return "", false
	}
	defer res.Body.Close()
	var env struct {
		DecisionID string `json:"decision_id"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&env) != nil || env.DecisionID == "" {
		return "", false
	}
	return env.DecisionID, true
}
