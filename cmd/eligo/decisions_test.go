package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/decisionlog/spool"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestDecisionsShipDrainsALeftSpool: a spool left by a serve process that
// could not ship (its database unreachable) is drained into the table by
// `eligo decisions ship`, which refuses while another process holds the
// spool and refuses a directory that does not exist.
func TestDecisionsShipDrainsALeftSpool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	dir := t.TempDir()

	// The replica that will not come back: nothing listens on port 1.
	gone, err := pgxpool.New(ctx, "postgres://eligo@127.0.0.1:1/eligo?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	r, err := decisionlog.Open(store.New(gone), decisionlog.Config{Spool: decisionlog.SpoolConfig{Dir: dir}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 50 {
		rec := store.DecisionRecord{DecisionID: fmt.Sprintf("dec_ship%012d", i), RulesetID: "leave:20260101-000000000000",
			RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("a", 64), EngineVersion: "eligo-core@0.1.0",
			Outcome: "eligible", InputsHash: "sha256:" + strings.Repeat("b", 64), DecidedAt: time.Now().UTC()}
		if err := r.Record(ctx, rec); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.DecisionID)
	}
	closing, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := r.Close(closing); err != nil {
		t.Fatal(err)
	}

	if code, _, errOut := eligo(t, "decisions", "ship", "--spool", filepath.Join(dir, "typo"), "--database-url", dbURL); code == 0 || !strings.Contains(errOut, "not a directory") {
		t.Errorf("ship from a missing directory: exit %d, %q", code, errOut)
	}
	holder, err := spool.Open(dir, spool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := eligo(t, "decisions", "ship", "--spool", dir, "--database-url", dbURL); code == 0 || !strings.Contains(errOut, "locked") {
		t.Errorf("ship from a spool another process holds: exit %d, %q", code, errOut)
	}
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := eligo(t, "decisions", "ship", "--spool", dir, "--database-url", dbURL)
	if code != 0 || !strings.Contains(out, "shipped 50 decision records") {
		t.Fatalf("ship: exit %d, %q %q", code, out, errOut)
	}
	missing, err := store.New(pool).MissingDecisionIDs(ctx, ids)
	if err != nil || len(missing) > 0 {
		t.Fatalf("after ship, %d of %d records missing (%v)", len(missing), len(ids), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.seg")); len(left) > 0 {
		t.Errorf("segments left after ship: %v", left)
	}
}
