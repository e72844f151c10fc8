// Package authoring is the authoring workspace: projects, their sources
// (kept as uploaded, with the text extracted from them), acceptance tests
// and contracts, guidance, the draft ruleset, the review report and
// publishing a draft with verified provenance. Everything here is
// deterministic but generation and discovery, which call the caller's
// model; generation, which writes drafts, is a table of named stages
// (stages.go) planned by PlanGeneration and run by RunGeneration. The
// work is four jobs, each a type over the store methods it needs:
// Projects, Drafts, Reviews and Generation (see Workspace). It speaks in
// Go types and sentinel errors, never HTTP: api/projects maps them to the
// wire.
package authoring

import (
	"errors"
	"fmt"
	"time"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/bound"
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
	// DefaultMaxSourceText caps the text extracted from one source (10
	// MiB, the size of the largest file): about 2.5 million tokens, over
	// twenty times a generation's budget, or a statute of some 5,000
	// pages. A PDF of a few hundred kilobytes can extract to tens of
	// megabytes, so the text is capped, not only the file.
	DefaultMaxSourceText = 10 << 20
	// DefaultMaxUploadText caps the text extracted from all the files of
	// one request together (20 MiB, two of the largest sources): what one
	// request may make the server hold, however many files it carries.
	DefaultMaxUploadText = 20 << 20
	// DefaultMaxProjectText caps the extracted text of one project's
	// sources together (40 MiB): four of the largest sources, or fifty
	// statutes of 800 KB, while a generation reads at most about 450 KB
	// of it.
	DefaultMaxProjectText = 40 << 20
	// DefaultExtractTimeout is the time all the PDFs of one request may
	// take to extract (20 s): a 1,000-page statute takes a few seconds,
	// and the request must answer well inside the server's 60 s write
	// timeout.
	DefaultExtractTimeout = 20 * time.Second
	// DefaultMaxProjects caps the projects of one tenant (100). A project
	// authors one section, and the largest programmes in the casebank
	// have a handful; projects are never deleted, so the cap bounds what
	// a tenant stores (each project up to DefaultMaxProjectBytes).
	DefaultMaxProjects = 100
	// DefaultMaxGuidance caps the guidance notes of one project (200).
	DefaultMaxGuidance = 200
	// DefaultMaxGuidanceBytes caps the guidance text of one project
	// together (256 KiB, about 64,000 tokens): guidance goes whole into
	// every generation prompt, whose budget is 112,000 tokens with a 128k-window
	// model.
	DefaultMaxGuidanceBytes = 256 << 10
	// DefaultMaxActiveGenerations caps the generations one tenant may
	// have queued or running at once (3). A project runs one at a time;
	// without a tenant cap, a tenant with many projects could start as
	// many generations, each holding a worker and its model calls for
	// minutes, although the generate class is only metered, not limited.
	DefaultMaxActiveGenerations = 3
	// MaxTests is the cap on a test suite (docs/authoring.md#limits).
	MaxTests = 100
	// MinTestsPerSection is the recommended minimum: fewer is "thin"
	// (docs/authoring.md#tests_per_section).
	MinTestsPerSection = 5
)

// Config tunes the workspace's jobs; zero members take the defaults above.
type Config struct {
	// Clock dates drafts; nil means the system clock.
	Clock clock.Clock
	// Gate bounds the review's solver runs and the uploads' text
	// extraction with every other heavy run of the process, within the
	// tenant's share; nil admits all.
	Gate *bound.Gate
	// MaxSourceBytes caps one uploaded file.
	MaxSourceBytes int64
	// MaxSources caps the sources of one project.
	MaxSources int
	// MaxProjectBytes caps one project's sources together.
	MaxProjectBytes int64
	// TokenBudget is the generation budget reported with uploads: the
	// budget of the default model, which a generation that names no model
	// is held to (the composition root sets it from the models offered);
	// zero means the default of llm.DefaultModels.
	TokenBudget int
	// MaxSourceText caps one source's extracted text, in bytes.
	MaxSourceText int64
	// MaxUploadText caps the text extracted from one request's files
	// together, in bytes.
	MaxUploadText int64
	// MaxProjectText caps one project's extracted text, in bytes.
	MaxProjectText int64
	// ExtractTimeout is the time one request's PDFs may take to extract,
	// together.
	ExtractTimeout time.Duration
	// MaxProjects caps the projects of one tenant.
	MaxProjects int
	// MaxGuidance caps the guidance notes of one project.
	MaxGuidance int
	// MaxGuidanceBytes caps one project's guidance text, in bytes.
	MaxGuidanceBytes int
	// MaxActiveGenerations caps the generations one tenant may have
	// queued or running at once.
	MaxActiveGenerations int
}

func (c Config) withDefaults() Config {
	c.Clock = clock.Or(c.Clock)
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
		c.TokenBudget = llm.DefaultModels().Default().Budget()
	}
	if c.MaxSourceText <= 0 {
		c.MaxSourceText = DefaultMaxSourceText
	}
	if c.MaxUploadText <= 0 {
		c.MaxUploadText = DefaultMaxUploadText
	}
	if c.MaxProjectText <= 0 {
		c.MaxProjectText = DefaultMaxProjectText
	}
	if c.ExtractTimeout <= 0 {
		c.ExtractTimeout = DefaultExtractTimeout
	}
	if c.MaxProjects <= 0 {
		c.MaxProjects = DefaultMaxProjects
	}
	if c.MaxGuidance <= 0 {
		c.MaxGuidance = DefaultMaxGuidance
	}
	if c.MaxGuidanceBytes <= 0 {
		c.MaxGuidanceBytes = DefaultMaxGuidanceBytes
	}
	if c.MaxActiveGenerations <= 0 {
		c.MaxActiveGenerations = DefaultMaxActiveGenerations
	}
	return c
}

// Workspace is the workspace's four jobs, each a type of its own over
// the store methods it needs: Projects (projects, their sources and
// guidance), Drafts (the draft, its tests and the editor's tools over
// it), Reviews (the review report and publishing) and Generation
// (model-backed generation and discovery). Drafts keeps the compiles of
// recently read drafts, which the other jobs read through it. Build one
// with New and hand each caller the job it needs; every job is safe for
// concurrent use.
type Workspace struct {
	// Projects creates projects and holds their sources and guidance.
	Projects *Projects
	// Drafts writes and works out drafts and their tests.
	Drafts *Drafts
	// Reviews reviews and publishes drafts.
	Reviews *Reviews
	// Generation plans and runs generations and discoveries.
	Generation *Generation
}

// New builds the workspace's jobs over st, publishing through pub so
// that a project's draft meets the same gates as any publish. It loads
// the tokenizer, which is the only way it fails.
func New(st *store.Store, pub *publish.Publisher, cfg Config) (Workspace, error) {
	counter, err := llm.NewCounter()
	if err != nil {
		return Workspace{}, fmt.Errorf("authoring: %w", err)
	}
	cfg = cfg.withDefaults()
	drafts := &Drafts{store: st, cfg: cfg, cache: newDraftCache(draftCacheSize)}
	reviews := &Reviews{store: st, publisher: pub, drafts: drafts, cfg: cfg}
	return Workspace{
		Projects:   &Projects{store: st, tokens: counter, cfg: cfg},
		Drafts:     drafts,
		Reviews:    reviews,
		Generation: &Generation{store: st, drafts: drafts, reviews: reviews, cfg: cfg},
	}, nil
}

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
	// TooMany: the tenant has as much under way as it may; the same
	// request may succeed once some of it ends (429, with RetryAfter).
	TooMany
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
	// RetryAfter is, for TooMany, how long to wait before trying again.
	RetryAfter time.Duration
}

// Error returns the message.
func (e *RefusedError) Error() string { return e.Reason + ": " + e.Message }

// InvalidError is a request whose members are wrong, each named by its
// location: the 422 validation list of docs/api.md#errors.
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
