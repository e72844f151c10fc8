package authoring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/authoring/source/sourcetest"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// newLimitedWorkspace is a Workspace over a fresh database with cfg's limits.
func newLimitedWorkspace(t testing.TB, cfg Config) (Workspace, *store.Store) {
	t.Helper()
	st := store.New(storetest.New(t))
	cat := catalog.New(st, catalog.Config{})
	t.Cleanup(cat.Close)
	s, err := New(st, publish.New(st, cat, publish.Config{}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

// refusedAs checks that err is a RefusedError of kind and reason whose
// message names the limit's value.
func refusedAs(t *testing.T, what string, err error, kind Kind, reason, value string) {
	t.Helper()
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Kind != kind || refused.Reason != reason || !strings.Contains(refused.Message, value) {
		t.Fatalf("%s: got %v, want a %s refusal naming %s", what, err, reason, value)
	}
}

// casebankText is the source.txt of every casebank entry, joined: real
// statute text, about 200 KB.
func casebankText(t testing.TB) string {
	t.Helper()
	names, err := filepath.Glob("../casebank/*/source.txt")
	if err != nil || len(names) < 10 {
		t.Fatalf("casebank sources: %v, %v", names, err)
	}
	var b strings.Builder
	for _, n := range names {
		text, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(text)
	}
	return b.String()
}

// Counting a piece at a time gives the whole text's count exactly, in
// both encodings, and stops soon after a limit.
func TestCountTokensInPieces(t *testing.T) {
	t.Parallel()
	text := casebankText(t)
	text = strings.Repeat(text, max(1, 3*tokenChunk/len(text)+1)) // several pieces
	for _, enc := range llm.Encodings() {
		counter, err := llm.NewCounterFor(enc)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := counter.Count(text)
		if err != nil {
			t.Fatal(err)
		}
		n, over, err := countTokens(counter, text, -1)
		if err != nil || over || n != whole {
			t.Fatalf("%s: pieces count %d (over %v, %v), the whole %d", enc, n, over, err, whole)
		}
		n, over, err = countTokens(counter, text, 1000)
		piece, _ := counter.Count(text[:pieceEnd(text)])
		if err != nil || !over || n <= 1000 || n > piece {
			t.Fatalf("%s: with a limit of 1000: %d (over %v, %v); one piece counts %d", enc, n, over, err, piece)
		}
	}
	// A text with no clean boundary (not prose) is still cut, and the sum
	// stays within a token a cut of the whole.
	counter, _ := llm.NewCounter()
	odd := strings.Repeat("§(1)—", forcedSplit)
	whole, _ := counter.Count(odd)
	n, _, err := countTokens(counter, odd, -1)
	if cuts := len(odd)/(tokenChunk+forcedSplit) + 1; err != nil || n < whole-cuts || n > whole+cuts {
		t.Fatalf("forced cuts: %d, the whole %d (%v)", n, whole, err)
	}
}

// TestSourceTextLimits are the upload limits on text, not bytes: one
// file's text, a request's text, and a project's text, each refused with
// nothing stored.
func TestSourceTextLimits(t *testing.T) {
	t.Parallel()
	s, _ := newLimitedWorkspace(t, Config{MaxSourceText: 64 << 10, MaxUploadText: 100 << 10, MaxProjectText: 150 << 10})
	ctx := context.Background()
	p, _, err := s.Projects.Create(ctx, "acme", CreateRequest{Name: "Grant", SectionID: "grant"})
	if err != nil {
		t.Fatal(err)
	}
	text := func(name string) Upload {
		return Upload{Filename: name, Content: []byte(strings.Repeat("The applicant is eligible. ", 40<<10/27))}
	}
	// Three pages of the amplifying PDF: 14 KB of file, 100 KB of text.
	_, err = s.Projects.AddSources(ctx, "acme", p.ID, []Upload{{Filename: "amplified.pdf", Content: sourcetest.Amplifying(3)}})
	refusedAs(t, "amplifying PDF", err, TooLarge, ReasonSourceTextTooLarge, "65536 bytes")
	_, err = s.Projects.AddSources(ctx, "acme", p.ID, []Upload{text("a.txt"), text("b.txt"), text("c.txt")})
	refusedAs(t, "three files in one request", err, TooLarge, ReasonUploadTextBudget, "102400 bytes")
	for _, names := range [][2]string{{"a.txt", "b.txt"}, {"c.txt", "d.txt"}} {
		_, err = s.Projects.AddSources(ctx, "acme", p.ID, []Upload{text(names[0]), text(names[1])})
	}
	refusedAs(t, "the project's text", err, TooLarge, ReasonSourceLimit, "153600 are allowed")
	if got, err := s.Projects.Sources(ctx, "acme", p.ID); err != nil || len(got) != 2 {
		t.Fatalf("sources stored: %d, %v; want the first two", len(got), err)
	}
	// A PDF that runs out of the request's time is the uploader's to fix.
	slow, _ := newLimitedWorkspace(t, Config{ExtractTimeout: 1})
	_, err = slow.Projects.prepareAll(ctx, "t", []Upload{{Filename: "slow.pdf", Content: sourcetest.Amplifying(1)}})
	refusedAs(t, "extraction time", err, Unprocessable, ReasonExtractionTimeout, "1ns")
}

// The tenant's projects are counted in the transaction that inserts, so
// concurrent creations stop at the cap exactly.
func TestProjectLimit(t *testing.T) {
	t.Parallel()
	s, _ := newLimitedWorkspace(t, Config{MaxProjects: 3})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, _, errs[i] = s.Projects.Create(ctx, "acme", CreateRequest{Name: fmt.Sprintf("P%d", i), SectionID: "grant"})
		})
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		if err == nil {
			created++
		} else {
			refusedAs(t, "a project past the cap", err, Unprocessable, ReasonProjectLimit, "at most 3 are allowed")
		}
	}
	if created != 3 {
		t.Fatalf("%d projects created concurrently under a cap of 3", created)
	}
	if _, _, err := s.Projects.Create(ctx, "beta", CreateRequest{Name: "Other tenant", SectionID: "grant"}); err != nil {
		t.Fatalf("another tenant: %v", err)
	}
}

func TestGuidanceLimits(t *testing.T) {
	t.Parallel()
	s, _ := newLimitedWorkspace(t, Config{MaxGuidance: 3, MaxGuidanceBytes: 1000})
	ctx := context.Background()
	p, _, err := s.Projects.Create(ctx, "acme", CreateRequest{Name: "Grant", SectionID: "grant"})
	if err != nil {
		t.Fatal(err)
	}
	note := func(n int) store.Guidance {
		return store.Guidance{Text: strings.Repeat("g", n), ProcessType: ProcessRuleGeneration}
	}
	_, err = s.Projects.AddGuidance(ctx, "acme", p.ID, note(1001))
	refusedAs(t, "one note over the text cap", err, TooLarge, ReasonGuidanceLimit, "1000 bytes of guidance text")
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() { _, errs[i] = s.Projects.AddGuidance(ctx, "acme", p.ID, note(10)) })
	}
	wg.Wait()
	added := 0
	for _, err := range errs {
		if err == nil {
			added++
		} else {
			refusedAs(t, "a note past the count", err, TooLarge, ReasonGuidanceLimit, "at most 3 guidance notes")
		}
	}
	if added != 3 {
		t.Fatalf("%d notes added concurrently under a cap of 3", added)
	}
	q, _, _ := s.Projects.Create(ctx, "acme", CreateRequest{Name: "Other", SectionID: "other"})
	if _, err := s.Projects.AddGuidance(ctx, "acme", q.ID, note(600)); err != nil {
		t.Fatal(err)
	}
	_, err = s.Projects.AddGuidance(ctx, "acme", q.ID, note(600))
	refusedAs(t, "notes over the text cap together", err, TooLarge, ReasonGuidanceLimit, "would total 1200 bytes")
}

// TestGenerationRefusedFromStoredEstimates is the probe: a project whose
// stored estimates already say 93 M tokens took the server past 6 GB
// assembling and counting the prompt before it refused. It is refused
// from the estimates, with the count they give, before any text is read.
func TestGenerationRefusedFromStoredEstimates(t *testing.T) {
	t.Parallel()
	s, st := newLimitedWorkspace(t, Config{})
	ctx := context.Background()
	p, _, err := s.Projects.Create(ctx, "acme", CreateRequest{Name: "Grant", SectionID: "grant"})
	if err != nil {
		t.Fatal(err)
	}
	// The texts are short; the estimates, as stored, are what counts.
	var rows []store.ProjectSource
	for i := range 3 {
		rows = append(rows, store.ProjectSource{Filename: fmt.Sprintf("s%d.txt", i), MediaType: "text/plain", Content: []byte("act"),
			ContentDigest: "sha256:" + strings.Repeat("0", 64), Text: "act", Signature: source.Sign("act").Bytes(), EstimatedTokens: 31_000_000})
	}
	if _, err := st.AddSources(ctx, "acme", p.ID, rows, s.Projects.sourceLimits()); err != nil {
		t.Fatal(err)
	}
	model := llm.ModelInfo{Name: "m", Encoding: llm.EncodingO200k, ContextWindow: 128_000, Reserved: 16_000}
	_, err = s.Generation.PlanGeneration(ctx, "acme", p.ID, GenerateRequest{Mode: ModeFresh, Model: model})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Reason != ReasonTokenBudget || !strings.Contains(refused.Message, "stored estimates") {
		t.Fatalf("got %v, want token_budget_exceeded from the stored estimates", err)
	}
	// The way out in the studio's words, with the API's status for programs.
	if !strings.Contains(refused.Message, "mark large sources “Reference only” on the Sources screen (status reference_only through the API)") {
		t.Errorf("message %q does not say how to mark a source Reference only", refused.Message)
	}
	d := refused.Detail.(map[string]any)
	if d["token_count"] != 93_000_000 || d["token_budget"] != 112_000 || len(d["largest_sources"].([]map[string]any)) != 3 {
		t.Fatalf("detail %v", d)
	}
}
