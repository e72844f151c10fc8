package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestInsertDecisionsAllOrNone: a batch is written whole or not at all,
// whether it goes as pipelined INSERTs (small) or as a COPY (large), and
// both ways store the same row.
func TestInsertDecisionsAllOrNone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	rec := func(prefix string, i int) store.DecisionRecord {
		return store.DecisionRecord{
			DecisionID: fmt.Sprintf("dec_%s%011d", prefix, i), TenantID: "tnt_a", RulesetID: "all_types:20260101-000000000000", Slug: "a/b",
			RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("a", 64), EngineVersion: "eligo-core@1", Outcome: "eligible",
			InputsHash: "sha256:" + strings.Repeat("b", 64), Flags: []string{"include_trace"}, CacheHit: true, FieldsProvided: 3, FieldErrors: 1,
			DecidedAt: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Duration: 42 * time.Microsecond,
			CallerRef: map[string]string{"case": fmt.Sprint(i)},
		}
	}
	for _, n := range []int{1, 5, 200} {
		prefix := fmt.Sprintf("n%04d", n)
		batch := make([]store.DecisionRecord, n)
		for i := range batch {
			batch[i] = rec(prefix, i)
		}
		// The last record breaks the decision id CHECK: nothing is written.
		bad := append([]store.DecisionRecord(nil), batch...)
		bad[n-1].DecisionID = "dec_bad"
		if err := st.InsertDecisions(ctx, bad); err == nil {
			t.Fatalf("%d records: a batch with a bad record was accepted", n)
		}
		ids := make([]string, n)
		for i := range batch {
			ids[i] = batch[i].DecisionID
		}
		if missing, err := st.MissingDecisionIDs(ctx, ids); err != nil || len(missing) != n {
			t.Fatalf("%d records: %d missing after a refused batch (%v), want all", n, len(missing), err)
		}
		if err := st.InsertDecisions(ctx, batch); err != nil {
			t.Fatalf("%d records: %v", n, err)
		}
		got, err := st.DecisionByID(ctx, batch[0].DecisionID)
		if err != nil {
			t.Fatal(err)
		}
		want := batch[0]
		if got.TenantID != want.TenantID || got.Slug != want.Slug || !got.CacheHit || got.FieldErrors != 1 ||
			got.Duration != want.Duration || !got.DecidedAt.Equal(want.DecidedAt) || got.CallerRef["case"] != "0" ||
			len(got.Flags) != 1 || got.Flags[0] != "include_trace" {
			t.Errorf("%d records: stored %+v, want %+v", n, got, want)
		}
	}
}

// TestInsertDecisionsWithAnswers: records carrying logged answers are
// written with them, as pipelined INSERTs and as a COPY, all or none (an
// answer the table refuses leaves no record either), and a record
// without answers leaves none; a second copy of a batch is refused by
// the decisions' key, as without answers.
func TestInsertDecisionsWithAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	decided := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	rec := func(prefix string, i int) store.DecisionRecord {
		r := store.DecisionRecord{
			DecisionID: fmt.Sprintf("dec_%s%011d", prefix, i), TenantID: "tnt_a", RulesetID: "all_types:20260101-000000000000", Slug: "a/b",
			RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("a", 64), EngineVersion: "eligo-core@1", Outcome: "eligible",
			InputsHash: "sha256:" + strings.Repeat("b", 64), DecidedAt: decided, DecisionDate: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC),
		}
		if i%2 == 0 {
			r.Answers, r.AnswerSetting, r.AnswerRetentionDays = []byte(fmt.Sprintf(`{"a.n": %d}`, i)), 3, 30
		}
		if i%3 == 0 {
			r.RulebookID = "rbk_x"
		}
		return r
	}
	for _, n := range []int{4, 100} {
		prefix := fmt.Sprintf("w%04d", n)
		batch := make([]store.DecisionRecord, n)
		for i := range batch {
			batch[i] = rec(prefix, i)
		}
		bad := append([]store.DecisionRecord(nil), batch...)
		bad[n-2].Answers = []byte(`[1]`) // not an object: the CHECK refuses it
		if err := st.InsertDecisions(ctx, bad); err == nil {
			t.Fatalf("%d records: a batch with answers that are not an object was accepted", n)
		}
		if _, err := st.DecisionByID(ctx, batch[0].DecisionID); err == nil {
			t.Fatalf("%d records: a record was written from a refused batch", n)
		}
		if err := st.InsertDecisions(ctx, batch); err != nil {
			t.Fatalf("%d records: %v", n, err)
		}
		for i, r := range batch {
			got, err := st.LoggedAnswerOf(ctx, r.DecisionID)
			switch {
			case r.Answers == nil && err == nil:
				t.Errorf("%d records: answers kept for record %d, which has none", n, i)
			case r.Answers != nil && err != nil:
				t.Errorf("%d records: record %d's answers: %v", n, i, err)
			case r.Answers != nil && (string(got.Answers) != fmt.Sprintf(`{"a.n": %d}`, i) || got.SettingVersion != 3 ||
				!got.ExpiresAt.Equal(decided.AddDate(0, 0, 30)) || !got.DecisionDate.Equal(r.DecisionDate)):
				t.Errorf("%d records: record %d's answers read back as %+v", n, i, got)
			}
		}
		var kinds []string
		if err := st.Pool().QueryRow(ctx, `SELECT array_agg(DISTINCT kind ORDER BY kind) FROM decision_answers WHERE decision_id LIKE $1`,
			"dec_"+prefix+"%").Scan(&kinds); err != nil || strings.Join(kinds, ",") != "rulebook,ruleset" {
			t.Errorf("%d records: kinds %v (%v), want both", n, kinds, err)
		}
		if err := st.InsertDecisions(ctx, batch); err == nil {
			t.Errorf("%d records: a second copy was accepted", n)
		}
	}
}
