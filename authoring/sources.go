package authoring

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/store"
)

// Upload is one file sent as a source.
type Upload struct {
	// Filename names the file; its extension settles the media type when
	// MediaType is empty.
	Filename string
	// MediaType is text/plain, text/markdown, text/html or application/pdf
	// (parameters ignored); empty to infer from Filename.
	MediaType string
	// Content is the file's bytes, kept exactly as sent.
	Content []byte
	// URL is where the text is published, for v1 references; optional.
	URL string
	// Title names the source in references; optional (Filename otherwise).
	Title string
	// Licence is the licence the text is published under; optional here,
	// required of every reference at publish.
	Licence string
}

// Duplicate names an earlier source an upload may repeat.
type Duplicate struct {
	// SourceID and Filename name the other source.
	SourceID string `json:"source_id"`
	Filename string `json:"filename"`
	// Kind is identical_bytes (the same bytes) or near_duplicate_text
	// (text resemblance at or above source.NearDuplicateThreshold).
	Kind string `json:"kind" enum:"identical_bytes,near_duplicate_text"`
	// Resemblance is the estimated shingle resemblance, 0 to 1.
	Resemblance float64 `json:"resemblance"`
}

// UploadedSource is a stored source and what the upload found about it.
type UploadedSource struct {
	store.ProjectSource
	// PossibleDuplicates are earlier sources (or earlier files of the same
	// upload) it may repeat; advisory, nothing is refused.
	PossibleDuplicates []Duplicate
}

// UploadResult is what an upload reports.
type UploadResult struct {
	// Sources are the stored sources, in upload order.
	Sources []UploadedSource
	// ProjectEstimatedTokens is the token count of every active source of
	// the project's text, this upload included.
	ProjectEstimatedTokens int
	// GenerationTokenBudget is the most a generation prompt may count.
	GenerationTokenBudget int
}

// prepared is an upload turned into a source row, before it is stored.
type prepared struct {
	row       store.ProjectSource
	signature source.Signature
}

// prepare validates one upload and extracts its text within the request's
// budget; loc locates the upload's members in the request, for errors.
func (s *Projects) prepare(ctx context.Context, budget *source.Budget, up Upload, loc ...any) (prepared, error) {
	if int64(len(up.Content)) > s.cfg.MaxSourceBytes {
		return prepared{}, &RefusedError{Kind: TooLarge, Reason: ReasonSourceTooLarge, Message: fmt.Sprintf(
			"The file %q is %d bytes; a source may be at most %d bytes.", up.Filename, len(up.Content), s.cfg.MaxSourceBytes)}
	}
	if strings.TrimSpace(up.Filename) == "" || len(up.Filename) > 255 || strings.ContainsAny(up.Filename, "/\\\x00") {
		return prepared{}, invalid("a source needs a filename of 1 to 255 characters without / or \\", up.Filename, append(loc, "filename")...)
	}
	if up.URL != "" {
		if u, err := url.Parse(up.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return prepared{}, invalid("url must be an absolute http or https address", up.URL, append(loc, "url")...)
		}
	}
	mediaType, err := source.MediaType(up.Filename, up.MediaType)
	if err != nil {
		return prepared{}, &RefusedError{Kind: Unprocessable, Reason: ReasonUnsupportedMediaType, Message: fmt.Sprintf("%q: %v", up.Filename, err)}
	}
	ex, err := budget.Extract(ctx, mediaType, up.Content)
	if err != nil {
		return prepared{}, s.extractRefusal(up.Filename, err)
	}
	tokens, _, err := countTokens(s.tokens, ex.Text, -1)
	if err != nil {
		return prepared{}, err
	}
	sum := sha256.Sum256(up.Content)
	sig := source.Sign(ex.Text)
	title := up.Title
	if title == "" {
		title = up.Filename
	}
	return prepared{signature: sig, row: store.ProjectSource{
		Filename: up.Filename, MediaType: mediaType, Title: title, URL: up.URL, Licence: up.Licence,
		Content: up.Content, ContentDigest: "sha256:" + hex.EncodeToString(sum[:]), Text: ex.Text, Pages: ex.Pages,
		Signature: sig.Bytes(), EstimatedTokens: tokens, Size: len(up.Content),
	}}, nil
}

// extractRefusal turns an extraction error of the named file into the
// refusal the uploader can act on, or wraps it as the server's own.
func (s *Projects) extractRefusal(filename string, err error) error {
	refuse := func(kind Kind, reason, msg string, args ...any) error {
		return &RefusedError{Kind: kind, Reason: reason, Message: fmt.Sprintf("%q: ", filename) + fmt.Sprintf(msg, args...)}
	}
	switch {
	case errors.Is(err, source.ErrTooManyPages):
		return refuse(TooLarge, ReasonSourceTextTooLarge, "the PDF has more than %d pages, the most a source may have. Upload the parts of the document the rules rest on.", source.MaxPages)
	case errors.Is(err, source.ErrTooLarge):
		return refuse(TooLarge, ReasonSourceTextTooLarge, "its text is over %d bytes, the most one source may hold (limit max_source_text). Upload the parts of the document the rules rest on, as separate sources.", s.cfg.MaxSourceText)
	case errors.Is(err, source.ErrBudgetExceeded):
		return refuse(TooLarge, ReasonUploadTextBudget, "the files of this request extract to more than %d bytes of text together, the most one request may (limit max_upload_text). Send the files in separate requests.", s.cfg.MaxUploadText)
	case errors.Is(err, source.ErrExtractionTimeout):
		return refuse(Unprocessable, ReasonExtractionTimeout, "extracting the text of this request's PDFs took longer than %s, the most one request may take (limit extract_timeout). Send the PDFs in separate requests, or upload the text as text/plain.", s.cfg.ExtractTimeout)
	case errors.Is(err, source.ErrUnreadable), errors.Is(err, source.ErrNoText):
		return refuse(Unprocessable, ReasonSourceUnreadable, "%v", err)
	}
	return fmt.Errorf("extract %q: %w", filename, err)
}

// prepareAll prepares every upload of one request of tenantID within one
// extraction budget (Config's MaxSourceText, MaxUploadText and
// ExtractTimeout), once a slot of the process's Gate (within the tenant's
// share) is free; the first problem refuses them all.
func (s *Projects) prepareAll(ctx context.Context, tenantID string, uploads []Upload, loc ...any) ([]prepared, error) {
	release, err := s.cfg.Gate.For(tenantID).Enter(ctx)
	if err != nil {
		return nil, fmt.Errorf("wait to extract: %w", err)
	}
	defer release()
	budget := source.NewBudget(s.cfg.MaxSourceText, s.cfg.MaxUploadText, s.cfg.ExtractTimeout)
	out := make([]prepared, 0, len(uploads))
	for _, up := range uploads {
		p, err := s.prepare(ctx, budget, up, loc...)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// AddSources extracts and stores uploads in the tenant's project, all or
// none, and reports each file's token estimate and possible duplicates.
func (s *Projects) AddSources(ctx context.Context, tenantID, projectID string, uploads []Upload) (UploadResult, error) {
	if len(uploads) == 0 {
		return UploadResult{}, invalid("send at least one file", nil, "files")
	}
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return UploadResult{}, err
	}
	existing, err := s.store.ProjectSources(ctx, tenantID, projectID, false)
	if err != nil {
		return UploadResult{}, err
	}
	if len(existing)+len(uploads) > s.cfg.MaxSources {
		return UploadResult{}, s.limitRefusal(fmt.Errorf("the project holds %d sources and at most %d are allowed", len(existing), s.cfg.MaxSources))
	}
	ready, err := s.prepareAll(ctx, tenantID, uploads)
	if err != nil {
		return UploadResult{}, err
	}
	rows := make([]store.ProjectSource, len(ready))
	for i, p := range ready {
		rows[i] = p.row
	}
	added, err := s.store.AddSources(ctx, tenantID, projectID, rows, s.sourceLimits())
	if errors.Is(err, store.ErrSourceLimit) {
		return UploadResult{}, s.limitRefusal(err)
	}
	if err != nil {
		return UploadResult{}, err
	}
	return s.uploadResult(existing, ready, added), nil
}

// sourceLimits are the store's limits on a project's sources.
func (s *Projects) sourceLimits() store.SourceLimits {
	return store.SourceLimits{MaxCount: s.cfg.MaxSources, MaxBytes: s.cfg.MaxProjectBytes, MaxText: s.cfg.MaxProjectText}
}

func (s *Projects) limitRefusal(err error) error {
	return &RefusedError{Kind: TooLarge, Reason: ReasonSourceLimit, Message: fmt.Sprintf(
		"%s A project holds at most %d sources, %d bytes of them and %d bytes of their extracted text (limits max_sources, max_project_bytes and max_project_text); delete sources it no longer needs.",
		storeLimitMessage(err, store.ErrSourceLimit), s.cfg.MaxSources, s.cfg.MaxProjectBytes, s.cfg.MaxProjectText)}
}

// uploadResult reports the stored sources with their duplicates among the
// project's earlier sources and the upload's earlier files.
func (s *Projects) uploadResult(existing []store.ProjectSource, ready []prepared, added []store.ProjectSource) UploadResult {
	type known struct {
		src store.ProjectSource
		sig source.Signature
	}
	var earlier []known
	total := 0
	for _, e := range existing {
		sig, err := source.ParseSignature(e.Signature)
		if err != nil {
			continue // a row without a readable signature resembles nothing
		}
		earlier = append(earlier, known{e, sig})
		if e.Status == "active" {
			total += e.EstimatedTokens
		}
	}
	res := UploadResult{GenerationTokenBudget: s.cfg.TokenBudget}
	for i, a := range added {
		up := UploadedSource{ProjectSource: a, PossibleDuplicates: []Duplicate{}}
		for _, k := range earlier {
			if k.src.ContentDigest == a.ContentDigest {
				up.PossibleDuplicates = append(up.PossibleDuplicates, Duplicate{SourceID: k.src.ID, Filename: k.src.Filename, Kind: "identical_bytes", Resemblance: 1})
			} else if r := ready[i].signature.Resemblance(k.sig); r >= source.NearDuplicateThreshold {
				up.PossibleDuplicates = append(up.PossibleDuplicates, Duplicate{SourceID: k.src.ID, Filename: k.src.Filename, Kind: "near_duplicate_text", Resemblance: r})
			}
		}
		total += a.EstimatedTokens
		earlier = append(earlier, known{a, ready[i].signature})
		res.Sources = append(res.Sources, up)
	}
	res.ProjectEstimatedTokens = total
	return res
}

// Sources lists the project's sources with their statuses.
func (s *Projects) Sources(ctx context.Context, tenantID, projectID string) ([]store.ProjectSource, error) {
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return nil, err
	}
	return s.store.ProjectSources(ctx, tenantID, projectID, false)
}

// SourceRaw returns a source with its original bytes.
func (s *Projects) SourceRaw(ctx context.Context, tenantID, projectID, sourceID string) (store.ProjectSource, error) {
	return s.store.SourceRaw(ctx, tenantID, projectID, sourceID)
}

// Source statuses.
const (
	StatusActive        = "active"
	StatusSuperseded    = "superseded"
	StatusReferenceOnly = "reference_only"
)

// UpdateSource sets a source's status: active (the default; only active
// sources enter generation), superseded (optionally by another source of
// the project) or reference_only. superseded_by is only meaningful with
// superseded and may not name the source itself.
func (s *Projects) UpdateSource(ctx context.Context, tenantID, projectID, sourceID, status, supersededBy string) (store.ProjectSource, error) {
	if supersededBy != "" && status != StatusSuperseded {
		return store.ProjectSource{}, invalid("superseded_by goes with status superseded", supersededBy, "superseded_by")
	}
	if supersededBy == sourceID {
		return store.ProjectSource{}, invalid("a source cannot supersede itself", supersededBy, "superseded_by")
	}
	src, err := s.store.UpdateSource(ctx, tenantID, projectID, sourceID, status, supersededBy)
	if supersededBy != "" && errors.Is(err, store.ErrNotFound) && strings.Contains(err.Error(), "superseded_by") {
		return store.ProjectSource{}, invalid("superseded_by must name another source of this project", supersededBy, "superseded_by")
	}
	return src, err
}

// DeleteSource removes a source, unless a published ruleset's provenance
// cites it: then 409 source_cited naming the rulesets, and the source
// stays.
func (s *Projects) DeleteSource(ctx context.Context, tenantID, projectID, sourceID string) error {
	err := s.store.DeleteSource(ctx, tenantID, projectID, sourceID)
	if errors.Is(err, store.ErrSourceCited) {
		ids, lookupErr := s.store.SourceCitations(ctx, sourceID)
		if lookupErr != nil {
			return lookupErr
		}
		return &RefusedError{Kind: Conflict, Reason: ReasonSourceCited, Detail: map[string]any{"cited_by": ids},
			Message: fmt.Sprintf("The source is cited by published ruleset %s; it is kept so their provenance stays verifiable. Mark it superseded instead.", strings.Join(ids, ", "))}
	}
	return err
}
