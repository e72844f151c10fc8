package authoring

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/store"
)

// Drafts is the workspace's drafts-and-tests job: it writes a project's
// draft and tests, works the draft out (compile, tests, provenance), and
// runs the editor's tools over it (format, symbols, a source's text with
// its citations, suggested cases). It keeps the compiles of recently read
// drafts (see draftCache), which Reviews and Generation read through it.
type Drafts struct {
	store draftStore
	cfg   Config
	// cache keeps the compiles of recently read drafts.
	cache *draftCache
}

// draftStore is what Drafts reads and writes of the store.
type draftStore interface {
	ProjectOf(ctx context.Context, tenantID, id string) (store.Project, error)
	ProjectSources(ctx context.Context, tenantID, projectID string, withText bool) ([]store.ProjectSource, error)
	UpdateProject(ctx context.Context, tenantID, id string, fn func(*store.Project) error) (store.Project, error)
}

// SourceQuestion is a conflicting or ambiguous clause the draft had to
// read one way: the quoted text, the candidate readings and the reading
// used until someone decides.
type SourceQuestion struct {
	// ID names the question within the draft.
	ID string `json:"id" minLength:"1" maxLength:"100"`
	// Quote is the clause, quoted.
	Quote string `json:"quote" maxLength:"4000"`
	// Question says what is unclear.
	Question string `json:"question" minLength:"1" maxLength:"4000"`
	// CandidateReadings are the readings the text allows.
	CandidateReadings []string `json:"candidate_readings" openapi:"nonnull" maxItems:"10"`
	// ProvisionalReading is the reading the draft uses.
	ProvisionalReading string `json:"provisional_reading" maxLength:"4000"`
	// Resolved is true once the team has settled it.
	Resolved bool `json:"resolved"`
}

// DraftRequest is a hand-written draft.
type DraftRequest struct {
	// Rules is the .rules text.
	Rules string
	// SourceQuestions are the draft's questions about its sources.
	SourceQuestions []SourceQuestion
}

// Workup is everything the workspace works out about a draft: whether it
// compiles, how its tests fare, how its quotes rest on the sources.
type Workup struct {
	// Project is the project as read.
	Project store.Project
	// Rules is the compiled draft; nil when there is none or it does not
	// compile.
	Rules *engine.Ruleset
	// CompileErrors are the draft's compile errors (with the section
	// check); empty when it compiles.
	CompileErrors syntax.ErrorList
	// Acceptance is the tests' and contract's verdict; zero when Rules is
	// nil.
	Acceptance Acceptance
	// Provenance is the quotes' report against the project's sources.
	Provenance ProvenanceReport
	// SourceCheck is the warn-only source check.
	SourceCheck SourceCheck
	// Questions are the draft's source questions.
	Questions []SourceQuestion
	// ReferenceProblems say which declared sources do not bind.
	ReferenceProblems []string
	// sources are the project's sources with their text.
	sources  []store.ProjectSource
	bindings []binding
}

// Compiled is nil when the draft compiles, else the refusal an operation
// that needs the compiled draft gives: ReasonDraftInvalid with the
// compile errors in `compile_errors`.
func (w Workup) Compiled() error {
	if w.Rules != nil {
		return nil
	}
	return &RefusedError{Kind: Unprocessable, Reason: ReasonDraftInvalid, Detail: map[string]any{"compile_errors": compileMessages(w.CompileErrors)},
		Message: "The draft does not compile: " + w.CompileErrors[0].Msg}
}

// PutDraft stores a hand-written draft, whether or not it compiles (a
// draft is work in progress), and works it out.
func (s *Drafts) PutDraft(ctx context.Context, tenantID, projectID string, req DraftRequest) (Workup, error) {
	questions, err := json.Marshal(orEmpty(req.SourceQuestions))
	if err != nil {
		return Workup{}, fmt.Errorf("encode source questions: %w", err)
	}
	now := s.cfg.Clock.Now().UTC()
	if _, err := s.store.UpdateProject(ctx, tenantID, projectID, func(p *store.Project) error {
		p.DraftText, p.DraftOrigin, p.DraftInputs, p.SourceQuestions, p.DraftUpdatedAt = &req.Rules, "hand", nil, questions, &now
		return nil
	}); err != nil {
		return Workup{}, err
	}
	return s.Draft(ctx, tenantID, projectID, nil)
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// withReadings gives every question candidate readings, empty when the
// model or a hand-written draft left them out (or stored null): the wire
// never shows them null.
func withReadings(qs []SourceQuestion) []SourceQuestion {
	for i := range qs {
		qs[i].CandidateReadings = orEmpty(qs[i].CandidateReadings)
	}
	return qs
}

// Draft works out the project's draft as it stands. targets binds
// declared sources to project sources (see SourceTarget); nil binds each
// by its declaration. A project without a draft is a 409 no_draft.
func (s *Drafts) Draft(ctx context.Context, tenantID, projectID string, targets map[string]SourceTarget) (Workup, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return Workup{}, err
	}
	if p.DraftText == nil {
		return Workup{Project: p}, noDraft()
	}
	sources, err := s.store.ProjectSources(ctx, tenantID, projectID, true)
	if err != nil {
		return Workup{}, err
	}
	return s.workUp(p, sources, targets)
}

// noDraft is the refusal of an operation that needs the project's draft
// before it has one.
func noDraft() *RefusedError {
	return &RefusedError{Kind: Conflict, Reason: ReasonNoDraft,
		Message: "The project has no draft yet: PUT /projects/{id}/draft with rules text, or generate one."}
}

// draftCacheSize bounds the compiled drafts one Drafts keeps. A draft at
// the engine's limits compiles to about 7 MB (one of the casebank's size
// to well under 1 MB), so the cache holds at most about 110 MB whatever
// is stored; a miss costs one compile, under 0.1 s at the limits.
const draftCacheSize = 16

// compiledDraft is what compiling one draft text gives: the ruleset, or
// the compile errors. A cached one is shared by every read of its text,
// so neither is ever modified (a compiled Ruleset is read-only anyway).
type compiledDraft struct {
	rules *engine.Ruleset
	errs  syntax.ErrorList
}

// compileDraft compiles a draft text.
func compileDraft(text string) (compiledDraft, error) {
	rules, _, err := engine.Compile("draft.rules", []byte(text))
	if err != nil {
		var errs syntax.ErrorList
		if !errors.As(err, &errs) {
			return compiledDraft{}, fmt.Errorf("compile draft: %w", err)
		}
		return compiledDraft{errs: errs}, nil
	}
	return compiledDraft{rules: rules}, nil
}

// draftCache keeps the compiles of the drafts read most recently, keyed
// by the SHA-256 of the text, so that reading a stored draft again (GET
// draft, a publish after a review) does not compile it again; the least
// recently read goes first. It is safe for concurrent use; two first reads
// of one text at once may both compile it, and one result is kept.
type draftCache struct {
	// mu guards order and byKey.
	mu sync.Mutex
	// size is the most entries kept.
	size int
	// order holds *draftEntry values, most recently read first.
	order *list.List
	// byKey finds an entry of order by the text's digest.
	byKey map[[sha256.Size]byte]*list.Element
}

// draftEntry is one cached compile.
type draftEntry struct {
	key   [sha256.Size]byte
	draft compiledDraft
}

// newDraftCache builds a cache of at most size compiled drafts.
func newDraftCache(size int) *draftCache {
	return &draftCache{size: size, order: list.New(), byKey: map[[sha256.Size]byte]*list.Element{}}
}

// compile returns the compile of text, from the cache when this text was
// compiled before.
func (c *draftCache) compile(text string) (compiledDraft, error) {
	key := sha256.Sum256([]byte(text))
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		d := e.Value.(*draftEntry).draft
		c.mu.Unlock()
		return d, nil
	}
	c.mu.Unlock()
	d, err := compileDraft(text)
	if err != nil {
		return d, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; !ok {
		c.byKey[key] = c.order.PushFront(&draftEntry{key: key, draft: d})
		if c.order.Len() > c.size {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.byKey, last.Value.(*draftEntry).key)
		}
	}
	return d, nil
}

// workUp compiles the draft (once per text: the draft cache) and checks it
// against the project's tests, contract and sources.
func (s *Drafts) workUp(p store.Project, sources []store.ProjectSource, targets map[string]SourceTarget) (Workup, error) {
	d, err := s.cache.compile(*p.DraftText)
	if err != nil {
		return Workup{Project: p}, err
	}
	return workUpCompiled(p, sources, targets, d)
}

// workUpCompiled checks the compiled draft d of project p against the
// project's tests, contract and sources.
func workUpCompiled(p store.Project, sources []store.ProjectSource, targets map[string]SourceTarget, d compiledDraft) (Workup, error) {
	w := Workup{Project: p, sources: sources, CompileErrors: syntax.ErrorList{}, ReferenceProblems: []string{},
		Acceptance: Acceptance{Results: []TestResult{}, Contract: []ContractCheck{}},
		Provenance: ProvenanceReport{Coverage: []SourceCoverage{}, Quotes: []QuoteCheck{}}}
	if err := json.Unmarshal(p.SourceQuestions, &w.Questions); err != nil {
		return w, fmt.Errorf("read source questions of project %s: %w", p.ID, err)
	}
	w.Questions = withReadings(w.Questions)
	rules := d.rules
	if rules == nil {
		w.CompileErrors = d.errs
		w.SourceCheck = sourceCheck(p, nil, sources, nil)
		return w, nil
	}
	if rules.SectionID != p.SectionID {
		w.CompileErrors = syntax.ErrorList{{File: "draft.rules", Pos: syntax.Pos{Line: 1, Col: 1}, Msg: sectionMismatch(rules.SectionID, p.SectionID)}}
		w.SourceCheck = sourceCheck(p, nil, sources, nil)
		return w, nil
	}
	w.Rules = rules
	var cases []engine.Case
	if err := json.Unmarshal(p.TestCases, &cases); err != nil {
		return w, fmt.Errorf("read tests of project %s: %w", p.ID, err)
	}
	var contract *Contract
	if len(p.Contract) > 0 {
		contract = &Contract{}
		if err := json.Unmarshal(p.Contract, contract); err != nil {
			return w, fmt.Errorf("read contract of project %s: %w", p.ID, err)
		}
	}
	w.Acceptance = accept(rules, cases, contract)
	w.bindings, w.ReferenceProblems = bind(p.ID, rules, sources, targets)
	if w.ReferenceProblems == nil {
		w.ReferenceProblems = []string{}
	}
	quotes := checkQuotes(rules, w.bindings)
	w.Provenance = provenanceReport(rules, sources, quotes)
	w.SourceCheck = sourceCheck(p, rules, sources, quotes)
	return w, nil
}
