// Package authoring is the authoring workspace: projects, their sources
// (kept as uploaded, with the text extracted from them), acceptance tests
// and contracts, guidance, the draft ruleset, the review report and
// publishing a draft with verified provenance. Everything here is
// deterministic; the model-backed generation that writes drafts builds on
// it. It speaks in Go types and sentinel errors, never HTTP: api/projects
// maps them to the wire.
package authoring

import (
	"errors"
	"fmt"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// Limits on what a project holds. They bound memory and storage whatever
// a caller sends; api/projects documents them.
const (
	// DefaultMaxSourceBytes caps one uploaded file (10 MiB).
	DefaultMaxSourceBytes = 10 << 20
	// DefaultMaxSources caps the sources of one project.
	DefaultMaxSources = 50
	// DefaultMaxProjectBytes caps the original bytes of one project's
	// sources together (100 MiB).
	DefaultMaxProjectBytes = 100 << 20
	// DefaultTokenBudget is the generation token budget: a 128k-token
	// context window less 16k reserved for instructions and the answer.
	DefaultTokenBudget = 128_000 - 16_000
	// MaxTests is the spec's cap on a test suite (Limits 11, rule 8).
	MaxTests = 100
	// MinTestsPerSection is the spec's guidance: fewer is "thin".
	MinTestsPerSection = 5
)

// Config tunes a Service; zero members take the defaults above.
type Config struct {
	// MaxSourceBytes caps one uploaded file.
	MaxSourceBytes int64
	// MaxSources caps the sources of one project.
	MaxSources int
	// MaxProjectBytes caps one project's sources together.
	MaxProjectBytes int64
	// TokenBudget is the generation budget reported with uploads.
	TokenBudget int
}

func (c Config) withDefaults() Config {
	if c.MaxSourceBytes <= 0 {
		c.MaxSourceBytes = DefaultMaxSourceBytes
	}
	if c.MaxSources <= 0 {
		c.MaxSources = DefaultMaxSources
	}
	if c.MaxProjectBytes <= 0 {
		c.MaxProjectBytes = DefaultMaxProjectBytes
	}
	if c.TokenBudget <= 0 {
		c.TokenBudget = DefaultTokenBudget
	}
	return c
}

// Service runs the workspace over the store; publishing goes through the
// publisher, so a project's draft meets the same gates as any publish.
// Build one with New; it is safe for concurrent use.
type Service struct {
	store     *store.Store
	publisher *publish.Publisher
	tokens    *llm.Counter
	cfg       Config
	// drafts keeps the compiles of recently read drafts (see draftCache).
	drafts *draftCache
}

// New builds a Service. It loads the tokenizer, which is the only way it
// fails.
func New(st *store.Store, pub *publish.Publisher, cfg Config) (*Service, error) {
	counter, err := llm.NewCounter()
	if err != nil {
		return nil, fmt.Errorf("authoring: %w", err)
	}
	return &Service{store: st, publisher: pub, tokens: counter, cfg: cfg.withDefaults(), drafts: newDraftCache(draftCacheSize)}, nil
}

// Limits reports the limits in force, for documentation and responses.
func (s *Service) Limits() Config { return s.cfg }

// ErrNotFound is a project or source that does not exist or belongs to
// another tenant: the two are never told apart.
var ErrNotFound = store.ErrNotFound

// Kind says what sort of refusal a RefusedError is, so the HTTP layer can
// pick its status without knowing each case.
type Kind int

const (
	// Unprocessable: the request is well formed but cannot be carried out
	// (422).
	Unprocessable Kind = iota
	// Conflict: the project's state forbids it (409).
	Conflict
	// TooLarge: a file or the project would exceed a size limit (413).
	TooLarge
)

// RefusedError is a request the workspace refused, with nothing written.
type RefusedError struct {
	// Kind picks the status.
	Kind Kind
	// Reason is the reason_code callers branch on.
	Reason string
	// Message says what to do, in a sentence or two.
	Message string
	// Detail carries the refusal's own members (failing tests, unverified
	// quotes), or nil.
	Detail any
}

// Error returns the message.
func (e *RefusedError) Error() string { return e.Reason + ": " + e.Message }

// InvalidError is a request whose members are wrong, each named by its
// location: the spec's 422 validation list.
type InvalidError struct {
	// Items are the problems, in request order.
	Items []Invalid
}

// Invalid is one problem of an InvalidError.
type Invalid struct {
	// Loc is the path to the member: "body", then names and indices.
	Loc []any
	// Type is the pydantic-style error type (value_error, missing...).
	Type string
	// Msg says what is wrong.
	Msg string
	// Input is the offending value, or nil.
	Input any
}

// Error joins the messages.
func (e *InvalidError) Error() string {
	msgs := make([]error, len(e.Items))
	for i, it := range e.Items {
		msgs[i] = errors.New(it.Msg)
	}
	return errors.Join(msgs...).Error()
}

// invalid builds a one-item InvalidError.
func invalid(msg string, input any, loc ...any) *InvalidError {
	return &InvalidError{Items: []Invalid{{Loc: append([]any{"body"}, loc...), Type: "value_error", Msg: "Value error, " + msg, Input: input}}}
}
