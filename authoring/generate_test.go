package authoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/llm/llmtest"
	"github.com/eligo/eligo/engine"
)

// A small act, its rules and its tests: one threshold and one
// discretionary review point.
const (
	grantLaw   = "Grant Act.\n\nSection 1. A person qualifies for the grant if the person is at least 18 years old.\n\nSection 2. The officer may, at their discretion, approve the grant.\n"
	grantRules = `section grant
source law "Grant Act" url "https://laws.example.org/grant" licence "CC-BY-4.0"
field person.age int weight 1
  question "How old are you?"
group age all "Age" {
  criterion adult "At least 18" {
    person.age >= 18
    cite law "is at least 18 years old"
  }
}
group officer all "Officer" {
  criterion officer_approves "The officer approves" discretionary {
    cite law "may, at their discretion, approve the grant"
  }
}
outcome age and officer
`
)

// grantCases are the project's tests: an adult waits for the officer, a
// child does not qualify.
var grantCases = []engine.Case{
	{Name: "adult waits for the officer", FieldValues: json.RawMessage(`{"person.age": 20}`), ExpectedOutcome: "undetermined"},
	{Name: "child", FieldValues: json.RawMessage(`{"person.age": 17}`), ExpectedOutcome: "not_eligible"},
}

// Drafts of the grant rules a scripted model answers with, each stopping
// the round at a different stage.
var (
	// wrongAge passes "child" and fails "adult waits for the officer".
	wrongAge = strings.Replace(grantRules, ">= 18", ">= 21", 1)
	// tooYoung fixes "adult waits for the officer" but breaks "child".
	tooYoung = strings.Replace(grantRules, ">= 18", ">= 10", 1)
	// misquoted cites words the act does not hold.
	misquoted = strings.Replace(grantRules, "is at least 18 years old", "is an adult", 1)
	// broken does not compile.
	broken = "section grant\nfield"
	// otherSection compiles, for the wrong section.
	otherSection = strings.Replace(grantRules, "section grant", "section loan", 1)
)

// answer is a model reply holding rules in the fenced block the prompt
// asks for.
func answer(rules string) llmtest.Turn {
	return llmtest.Turn{Reply: "Here are the rules.\n\n```rules\n" + rules + "```\n"}
}

// newGeneration is a Workspace with the grant project (its act uploaded,
// its tests set) and a scripted model playing turns, planned with
// repairRounds; 0 takes the default.
func newGeneration(t *testing.T, repairRounds int, turns ...llmtest.Turn) (Workspace, *Plan, *llmtest.Server) {
	t.Helper()
	ctx := context.Background()
	s, p := newDraftWorkspace(t)
	if _, err := s.Projects.AddSources(ctx, "acme", p.ID, []Upload{{Filename: "grant.md", Content: []byte(grantLaw),
		URL: "https://laws.example.org/grant", Licence: "CC-BY-4.0"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Drafts.SetTests(ctx, "acme", p.ID, TestsRequest{TestCases: grantCases}); err != nil {
		t.Fatal(err)
	}
	model := llm.ModelInfo{Name: "scripted", Encoding: llm.EncodingO200k, ContextWindow: 128_000, Reserved: 16_000}
	plan, err := s.Generation.PlanGeneration(ctx, "acme", p.ID, GenerateRequest{Mode: ModeFresh, Model: model, RepairRounds: repairRounds})
	if err != nil {
		t.Fatal(err)
	}
	return s, plan, llmtest.NewServer(t, turns...)
}

// The generation pipeline driven through its stages by a scripted model
// over a real socket: the stages the status names, in order (stage/round/
// tests passing), the rounds kept, and the stage a failure names.
func TestGenerationStages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		rounds int
		turns  []llmtest.Turn
		// progress is every report, as stage/round/tests passing.
		progress []string
		// kept is each round's last stage and whether it was kept.
		kept []string
		// failed is the failure's stage and reason; empty when a draft
		// was kept.
		failed string
		// told is what the last request's feedback must say.
		told string
	}{
		{
			name:     "accepted at once",
			turns:    []llmtest.Turn{answer(grantRules)},
			progress: []string{"call/1/0", "extract/1/0", "compile/1/0", "verify_quotes/1/0", "test/1/2"},
			kept:     []string{"test:kept"},
		},
		{
			name:     "a compile failure is fed back and repaired",
			turns:    []llmtest.Turn{answer(broken), answer(grantRules)},
			progress: []string{"call/1/0", "extract/1/0", "compile/1/0", "repair/2/0", "extract/2/0", "compile/2/0", "verify_quotes/2/0", "test/2/2"},
			kept:     []string{"compile:dropped", "test:kept"},
			told:     "The rules do not compile",
		},
		{
			name:     "no compiling round is named by the compile stage",
			rounds:   1,
			turns:    []llmtest.Turn{answer(broken), answer(broken)},
			progress: []string{"call/1/0", "extract/1/0", "compile/1/0", "repair/2/0", "extract/2/0", "compile/2/0"},
			kept:     []string{"compile:dropped", "compile:dropped"},
			failed:   "compile/no_valid_draft",
			told:     "The rules do not compile",
		},
		{
			name:     "a reply without rules stops at extract",
			rounds:   1,
			turns:    []llmtest.Turn{{Reply: "I cannot help with that."}, answer(otherSection)},
			progress: []string{"call/1/0", "extract/1/0", "repair/2/0", "extract/2/0", "compile/2/0"},
			kept:     []string{"extract:dropped", "compile:dropped"},
			failed:   "compile/no_valid_draft",
			told:     "Your reply held no rules",
		},
		{
			name:     "an unverifiable quote stops at verify_quotes",
			rounds:   1,
			turns:    []llmtest.Turn{answer(misquoted), answer(misquoted)},
			progress: []string{"call/1/0", "extract/1/0", "compile/1/0", "verify_quotes/1/0", "repair/2/0", "extract/2/0", "compile/2/0", "verify_quotes/2/0"},
			kept:     []string{"verify_quotes:dropped", "verify_quotes:dropped"},
			failed:   "verify_quotes/no_valid_draft",
			told:     "cannot be verified",
		},
		{
			// The second round passes the test the first failed but breaks
			// the one it passed: it is not kept, and the status goes back
			// to the best draft's count for the next call.
			name:  "a round that breaks a passing test is not kept",
			turns: []llmtest.Turn{answer(wrongAge), answer(tooYoung), answer(grantRules)},
			progress: []string{"call/1/0", "extract/1/0", "compile/1/0", "verify_quotes/1/0", "test/1/1",
				"repair/2/1", "extract/2/0", "compile/2/0", "verify_quotes/2/0", "test/2/1",
				"repair/3/1", "extract/3/0", "compile/3/0", "verify_quotes/3/0", "test/3/2"},
			kept: []string{"test:kept", "test:dropped", "test:kept"},
			told: "broke tests that passed before (child)",
		},
		{
			name:     "a provider failure is named by the call stage",
			turns:    []llmtest.Turn{{Status: 401}},
			progress: []string{"call/1/0"},
			kept:     []string{},
			failed:   "call/provider_auth_failed",
		},
		{
			name:     "a provider failure in a repair round is named by the repair stage",
			turns:    []llmtest.Turn{answer(broken), {Status: 500}},
			progress: []string{"call/1/0", "extract/1/0", "compile/1/0", "repair/2/0"},
			kept:     []string{"compile:dropped"},
			failed:   "repair/provider_unavailable",
			told:     "The rules do not compile",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, plan, model := newGeneration(t, tc.rounds, tc.turns...)
			var progress []string
			res, err := s.Generation.RunGeneration(context.Background(), plan, llm.NewOpenAI(llm.OpenAIConfig{BaseURL: model.URL()}), llm.NewKey("sk-test"),
				func(p Progress) {
					progress = append(progress, fmt.Sprintf("%s/%d/%d", p.Stage, p.Round, p.TestsPassing))
					if p.TestsTotal != len(grantCases) {
						t.Errorf("%s reports %d tests, want %d", p.Stage, p.TestsTotal, len(grantCases))
					}
				})
			if strings.Join(progress, " ") != strings.Join(tc.progress, " ") {
				t.Errorf("progress\n got %v\nwant %v", progress, tc.progress)
			}
			kept := []string{}
			for _, r := range res.Rounds {
				verdict := "dropped"
				if r.Kept {
					verdict = "kept"
				}
				kept = append(kept, r.Stage+":"+verdict)
			}
			if strings.Join(kept, " ") != strings.Join(tc.kept, " ") {
				t.Errorf("rounds %v, want %v", kept, tc.kept)
			}
			var failed *GenerationError
			switch {
			case tc.failed == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case tc.failed == "" && (!res.Accepted || !strings.HasPrefix(res.RulesetID, "grant:draft-")):
				t.Errorf("kept %q, accepted %v", res.RulesetID, res.Accepted)
			case tc.failed != "" && !errors.As(err, &failed):
				t.Fatalf("got %v, want a generation failure %s", err, tc.failed)
			case tc.failed != "" && failed.Stage+"/"+failed.Reason != tc.failed:
				t.Errorf("failed at %s/%s, want %s", failed.Stage, failed.Reason, tc.failed)
			}
			if tc.told != "" {
				reqs := model.Requests()
				msgs := reqs[len(reqs)-1].Messages
				if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Content, tc.told) {
					t.Errorf("the last call was told %q, want %q", last.Content, tc.told)
				}
			}
		})
	}
}

// A repair round describes each failing test with the solver's minimal
// reasons, and a round that breaks a test that passed leaves the best
// draft as it was: the draft stored is the last kept, never the one that
// broke a test.
func TestGenerationNeverGoesBackwards(t *testing.T) {
	t.Parallel()
	s, plan, model := newGeneration(t, 1, answer(wrongAge), answer(tooYoung))
	res, err := s.Generation.RunGeneration(context.Background(), plan, llm.NewOpenAI(llm.OpenAIConfig{BaseURL: model.URL()}), llm.NewKey("sk-test"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted || res.TestsPassing != 1 || len(res.Failures) != 1 || res.Failures[0].Name != "adult waits for the officer" {
		t.Fatalf("kept a draft passing %d (accepted %v), failures %v; want the first round's", res.TestsPassing, res.Accepted, res.Failures)
	}
	if !strings.Contains(res.Rounds[1].Note, "broke tests") || res.Rounds[1].TestsPassing != 1 {
		t.Errorf("the second round: %+v", res.Rounds[1])
	}
	msgs := model.Requests()[1].Messages
	// The model is told the language has field ranges, and which the law
	// implies, by the instructions and by the grammar that follows them.
	if sys := msgs[0].Content; !strings.Contains(sys, "range 1.. for a household's size") || !strings.Contains(sys, "range <min>..<max>") {
		t.Errorf("the prompt does not describe field ranges")
	}
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "### adult waits for the officer") || !strings.Contains(last, "criterion adult") {
		t.Errorf("the repair round was not told of the failing test with its minimal reason: %s", last)
	}
	p, err := s.Projects.Project(context.Background(), "acme", plan.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.DraftText == nil || *p.DraftText != wrongAge || p.DraftOrigin != "generation" {
		t.Errorf("the stored draft is not the kept one: %v", p.DraftText)
	}
}

// Every stage the pipeline declares is a row of its tables, in the
// documented order (assemble, count, call, extract, compile,
// verify_quotes, test, repair), so what the status can report is what
// the tables run.
func TestStageTablesAreThePipeline(t *testing.T) {
	t.Parallel()
	var names []string
	for _, st := range planStages {
		names = append(names, st.name)
	}
	for _, st := range roundStages {
		names = append(names, st.name)
	}
	names = append(names, repairRound.name)
	want := []string{StageAssemble, StageCount, StageCall, StageExtract, StageCompile, StageVerifyQuotes, StageTest, StageRepair}
	if !slices.Equal(names, want) {
		t.Fatalf("the tables run %v, the pipeline declares %v", names, want)
	}
}

// Planning refuses before any model call, and its refusals keep their
// reason codes: a project with no active source is no_active_sources.
func TestPlanningRefusesWithoutSources(t *testing.T) {
	t.Parallel()
	s, p := newDraftWorkspace(t)
	model := llm.ModelInfo{Name: "scripted", Encoding: llm.EncodingO200k, ContextWindow: 128_000, Reserved: 16_000}
	_, err := s.Generation.PlanGeneration(context.Background(), "acme", p.ID, GenerateRequest{Mode: ModeFresh, Model: model})
	refusedAs(t, "plan without sources", err, Unprocessable, ReasonNoSources, "no active source")
}
