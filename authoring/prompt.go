package authoring

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/store"
)

// The prompt is assembled from the project alone: the language's grammar,
// the citation rules, the active sources, the guidance and the tests (and,
// to refine, the seed ruleset). Everything the model is told is in the
// messages, so the exact count of their tokens is the count of the prompt.

const systemPrompt = `You write eligibility rules in the Eligo rules language from statute or policy text.
Reply with exactly one fenced block tagged rules holding the whole .rules file, and nothing else except, optionally, one fenced block tagged questions.

Citation rules:
- Every criterion cites the words of the law it rests on: cite <source id> "<exact quote>". A quote is copied word for word from the source text below; only white space may differ. Never paraphrase, abbreviate or join passages in a quote.
- Declare each source you cite exactly as the project lists it below (its source line is given), with its licence.
- Mark a criterion discretionary when the text leaves the decision to an official; such a criterion has no expression.
- Use ?? default or present()/absent() only where the law itself says what holds without an answer.

Field names in the tests are the field ids to declare: use them exactly.
Give a number field the range the law implies: range 1.. for a household's size (it has at least one member), range 0.. for an income, an age, a count of hours, months or years; never a range the law does not imply.

When a clause is ambiguous or two clauses conflict, pick a provisional reading, write the rules with it, and report it in a questions block: a JSON array of objects with id, quote (the clause, word for word), question, candidate_readings (array of strings) and provisional_reading.

The language reference follows.

`

// sourceLine is how the draft must declare a project source: by its url
// when it has one (a v1 reference), else as an artefact (v2).
func sourceLine(src store.ProjectSource) string {
	id := notIdentifier.ReplaceAllString("s_"+strings.ToLower(strings.TrimPrefix(src.ID, "src_")), "_")
	licence := src.Licence
	if licence == "" {
		licence = "<licence>"
	}
	title := src.Title
	if title == "" {
		title = src.Filename
	}
	if src.URL != "" && privateURL(src.URL) == "" {
		return fmt.Sprintf("source %s %s url %s licence %s", id, quoteRules(title), quoteRules(src.URL), quoteRules(licence))
	}
	return fmt.Sprintf("source %s %s artefact %s licence %s", id, quoteRules(title), quoteRules(src.ID), quoteRules(licence))
}

// quoteRules writes s as a rules-language string (only \" and \\ escape).
func quoteRules(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ").Replace(s) + `"`
}

// assemble builds the first messages of a generation.
func assemble(p store.Project, sources []store.ProjectSource, guidance []store.Guidance, cases []engine.Case, seed string) []llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Write the ruleset of section %s (project %q). Start the file with: section %s\n\n", p.SectionID, p.Name, p.SectionID)
	b.WriteString("## Sources\n\n")
	for _, src := range sources {
		if src.Status != StatusActive {
			continue
		}
		fmt.Fprintf(&b, "### %s\nDeclare it as:\n%s\n\nText:\n%s\n\n", src.Filename, sourceLine(src), src.Text)
	}
	if len(guidance) > 0 {
		b.WriteString("## Guidance from the authoring team\n\n")
		for _, g := range guidance {
			scope := ""
			if g.DomainScope != "" {
				scope = " (domain " + g.DomainScope + ")"
			}
			strict := ""
			if g.Adherence == AdherenceExact {
				strict = " Follow it exactly."
			}
			fmt.Fprintf(&b, "- [%s%s] %s%s\n", g.ProcessType, scope, g.Text, strict)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Tests the rules must pass\n\n")
	tests, _ := json.MarshalIndent(cases, "", "  ") // cases decoded from JSON always encode
	b.Write(tests)
	b.WriteString("\n")
	if seed != "" {
		b.WriteString("\n## The ruleset in force\n\nMake the smallest edit to it that passes every test; keep every criterion the tests do not require you to change.\n\n```rules\n")
		b.WriteString(seed)
		b.WriteString("\n```\n")
	}
	return []llm.Message{{Role: "system", Content: systemPrompt + syntax.Grammar()}, {Role: "user", Content: b.String()}}
}

var (
	notIdentifier  = regexp.MustCompile(`[^a-z0-9_]`)
	rulesBlock     = regexp.MustCompile("(?s)```rules[ \t]*\n(.*?)```")
	anyBlock       = regexp.MustCompile("(?s)```[a-z]*[ \t]*\n(.*?)```")
	questionsBlock = regexp.MustCompile("(?s)```questions[ \t]*\n(.*?)```")
)

// extract takes the rules text and the source questions out of a model's
// reply: the block tagged rules, else the only fenced block, else the
// whole reply when it starts like a rules file.
func extract(reply string) (rules string, questions []SourceQuestion, ok bool) {
	if m := questionsBlock.FindStringSubmatch(reply); m != nil {
		if json.Unmarshal([]byte(m[1]), &questions) != nil {
			questions = nil
		}
		questions = withReadings(questions)
		for i := range questions {
			if questions[i].ID == "" {
				questions[i].ID = fmt.Sprintf("q%d", i+1)
			}
		}
	}
	if m := rulesBlock.FindStringSubmatch(reply); m != nil {
		return m[1], questions, true
	}
	if all := anyBlock.FindAllStringSubmatch(reply, -1); len(all) == 1 {
		return all[0][1], questions, true
	}
	trimmed := strings.TrimSpace(reply)
	for _, start := range []string{"section ", "ruleset ", "#"} {
		if strings.HasPrefix(trimmed, start) {
			return trimmed, questions, true
		}
	}
	return "", questions, false
}

// compileFeedback asks for a fix of compile errors.
func compileFeedback(errs syntax.ErrorList) string {
	var b strings.Builder
	b.WriteString("The rules do not compile:\n")
	for _, e := range errs {
		b.WriteString("- " + e.Error() + "\n")
	}
	b.WriteString("Reply with the whole corrected file in a rules block.")
	return b.String()
}

// quoteFeedback asks for quotes that are in the sources.
func quoteFeedback(problems []string) string {
	return "These citations cannot be verified against the project's sources:\n- " + strings.Join(problems, "\n- ") +
		"\nQuote the source text word for word (only white space may differ) and declare each source exactly as listed. Reply with the whole corrected file in a rules block."
}

// testFeedback describes each failing test with the solver's minimal
// reasons: the criteria that stand between the answers and the expected
// outcome, their conditions, the facts they read and their quotes.
func testFeedback(failing []failure, broke []string) string {
	var b strings.Builder
	if len(broke) > 0 {
		fmt.Fprintf(&b, "Your last change broke tests that passed before (%s), so it was discarded. Start again from the previous version and fix only the failing tests below.\n\n", strings.Join(broke, ", "))
	}
	b.WriteString("These tests fail:\n")
	for _, f := range failing {
		fmt.Fprintf(&b, "\n### %s\nexpected %s, got %s\n", f.result.Name, f.result.Expected, f.result.Got)
		for _, m := range f.result.Mismatches {
			b.WriteString("- " + m + "\n")
		}
		for _, r := range f.reasons {
			fmt.Fprintf(&b, "- criterion %s (%s) is %s and needs to be %s: %s", r.CriterionID, r.Title, r.Status, r.NeededStatus, r.Mechanism)
			if r.Condition != "" {
				fmt.Fprintf(&b, "; condition %s", r.Condition)
			}
			if len(r.Facts) > 0 {
				facts, _ := json.Marshal(r.Facts)
				fmt.Fprintf(&b, "; answers %s", facts)
			}
			for _, ref := range r.SourceReferences {
				fmt.Fprintf(&b, "; cites %q", ref.Quote.Exact)
			}
			b.WriteString("\n")
		}
		if f.trace != "" {
			b.WriteString("trace: " + f.trace + "\n")
		}
	}
	b.WriteString("\nReread the quoted law, make the smallest change that passes these tests without breaking the others, and reply with the whole file in a rules block.")
	return b.String()
}

// failure is a failing test with what the solver says of it.
type failure struct {
	result  TestResult
	reasons []solver.Reason
	trace   string
}

// activeSources returns the project's sources, with their text, once
// their stored token estimates say the active ones can fit model's budget:
// a project whose active sources alone count more is refused (422
// token_budget_exceeded) from the estimates, before any text is read.
// With no active source it refuses with ReasonNoSources and noSources.
func (s *Generation) activeSources(ctx context.Context, tenantID, projectID string, model llm.ModelInfo, noSources string) ([]store.ProjectSource, error) {
	listed, err := s.store.ProjectSources(ctx, tenantID, projectID, false)
	if err != nil {
		return nil, err
	}
	estimate, active := 0, 0
	for _, src := range listed {
		if src.Status == StatusActive {
			estimate += src.EstimatedTokens
			active++
		}
	}
	if active == 0 {
		return nil, &RefusedError{Kind: Unprocessable, Reason: ReasonNoSources, Message: noSources}
	}
	// Each source's text goes whole into the prompt, so the prompt counts
	// at least their estimates together.
	if budget := model.Budget(); estimate > budget {
		return nil, overBudget(model, estimate, listed, fmt.Sprintf(
			"The active sources alone count %d tokens by their stored estimates and %s's budget is %d, so no prompt was assembled", estimate, model.Name, budget))
	}
	return s.store.ProjectSources(ctx, tenantID, projectID, true)
}

// countPrompt counts messages with model's tokenizer, a piece at a time,
// and refuses them (422 token_budget_exceeded) as soon as the count passes
// model's budget: however large the prompt, no more than the budget and
// one piece is tokenised.
func countPrompt(model llm.ModelInfo, messages []llm.Message, sources []store.ProjectSource) (int, error) {
	counter, err := llm.NewCounterFor(model.Encoding)
	if err != nil {
		return 0, err
	}
	budget, total := model.Budget(), 0
	for _, m := range messages {
		n, over, err := countTokens(counter, m.Content, budget-total)
		if err != nil {
			return 0, err
		}
		total += n
		if over {
			return 0, overBudget(model, total, sources, fmt.Sprintf(
				"The prompt counts more than %d tokens (counting stopped at %d) and %s's budget is %d", budget, total, model.Name, budget))
		}
	}
	return total, nil
}

// overBudget is the token_budget_exceeded refusal: the count (or, when
// counting stopped early, what was counted: at least that many), the
// budget and the largest active sources, with what to do.
func overBudget(model llm.ModelInfo, count int, sources []store.ProjectSource, first string) error {
	return &RefusedError{Kind: Unprocessable, Reason: ReasonTokenBudget,
		Message: first + "; mark large sources “Reference only” on the Sources screen (status reference_only through the API), or split the project.",
		Detail:  map[string]any{"token_count": count, "token_budget": model.Budget(), "largest_sources": largestSources(sources, 3)}}
}

// largestSources lists the active sources by token count, largest first:
// what a caller should trim when a prompt is over budget.
func largestSources(sources []store.ProjectSource, n int) []map[string]any {
	active := slices.DeleteFunc(slices.Clone(sources), func(s store.ProjectSource) bool { return s.Status != StatusActive })
	slices.SortFunc(active, func(a, b store.ProjectSource) int { return b.EstimatedTokens - a.EstimatedTokens })
	out := []map[string]any{}
	for _, s := range active[:min(n, len(active))] {
		out = append(out, map[string]any{"source_id": s.ID, "filename": s.Filename, "estimated_tokens": s.EstimatedTokens})
	}
	return out
}
