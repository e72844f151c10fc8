package projects

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/store"
)

// uploadRefusals are the refusals of a request that adds sources.
func uploadRefusals(lim authoring.Config) []api.Refusal {
	return append([]api.Refusal{
		{Status: http.StatusRequestEntityTooLarge, ReasonCode: authoring.ReasonSourceTooLarge, Meaning: "one file is over the per-file limit."},
		{Status: http.StatusRequestEntityTooLarge, ReasonCode: authoring.ReasonSourceLimit, Meaning: "the project would hold more sources, more bytes of them, or more extracted text than allowed."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonUnsupportedMediaType, Meaning: "a file is not plain text, Markdown, HTML or PDF."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonSourceUnreadable, Meaning: "a file does not decode as its media type (invalid UTF-8, a damaged PDF) or holds no text (a scanned PDF without a text layer)."},
	}, textRefusals(lim)...)
}

const sourcesDoc = "Only `active` sources enter generation; `superseded` and `reference_only` sources stay for reference and provenance."

func registerSources(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route, lim authoring.Config) {
	read := []auth.Scope{auth.ScopeProjectsRead}
	write := []auth.Scope{auth.ScopeProjectsWrite}

	upload := op("upload-project-sources", http.MethodPost, "/projects/{project_id}/sources", "Upload sources",
		fmt.Sprintf("Adds statute or policy text to the project, all files or none. Two bodies are accepted: "+
			"`multipart/form-data` with one or more file parts (each part's Content-Type, or its filename's extension, gives the media type) and optional form fields `url`, `title` and `licence` that apply to every file of the form (send one file per request to give each its own); "+
			"or `application/json`, one file: `filename`, optional `media_type`, the content as `text` (UTF-8) or `content_base64` (any bytes, standard base64), and optional `url` (where the text is published; needed to cite it by url), `title` and `licence`. "+
			"Media types: text/plain, text/markdown, text/html (text extracted with an HTML5 parser; scripts and styles dropped) and application/pdf (text extracted page by page with poppler's pdftotext, so a quote is located on its page; a PDF without a text layer is refused, no OCR is done). "+
			"The original bytes are kept (GET .../raw) beside the extracted text quotes are verified against. "+
			"Each stored source reports `estimated_tokens` (its text's exact o200k_base token count); the response adds `project_estimated_tokens` (every active source) and `generation_token_budget`. "+
			"`possible_duplicates` names earlier sources (or earlier files of the same upload) with the same bytes (`identical_bytes`) or nearly the same text (`near_duplicate_text`: MinHash resemblance of word 5-gram shingles of at least 0.8); advisory, nothing is refused. "+
			"Limits: %d bytes per file (413 `%s`); %d bytes of extracted text per file (413 `%s`) and %d bytes of it from all the files of one request (413 `%s`), with extraction stopped as soon as a limit is passed; %s for all the PDFs of one request to extract (422 `%s`); %d sources, %d bytes of sources and %d bytes of extracted text per project (413 `%s`); and the request body cap of a keyed caller. "+sourcesDoc,
			lim.MaxSourceBytes, authoring.ReasonSourceTooLarge, lim.MaxSourceText, authoring.ReasonSourceTextTooLarge, lim.MaxUploadText, authoring.ReasonUploadTextBudget,
			lim.ExtractTimeout, authoring.ReasonExtractionTimeout, lim.MaxSources, lim.MaxProjectBytes, lim.MaxProjectText, authoring.ReasonSourceLimit), write)
	upload.DefaultStatus, upload.Refusals, upload.Idempotent = http.StatusCreated, uploadRefusals(lim), true
	api.Register(s, upload, h.upload)
	documentUploadBody(s)

	api.Register(s, op("list-project-sources", http.MethodGet, "/projects/{project_id}/sources", "List sources",
		"Every source of the project in upload order, with its status and token estimate. "+sourcesDoc, read), h.listSources)

	patch := op("update-project-source", http.MethodPatch, "/projects/{project_id}/sources/{source_id}", "Set a source's status",
		"Sets `status` to `active`, `superseded` or `reference_only`; `superseded_by` (with `superseded` only) names the project's source that replaces it. "+sourcesDoc, write)
	api.Register(s, patch, h.patchSource)

	del := op("delete-project-source", http.MethodDelete, "/projects/{project_id}/sources/{source_id}", "Delete a source",
		"Removes the source with its bytes and text. A source that a published ruleset's provenance cites is kept: 409 `source_cited` with `cited_by`, the rulesets citing it; mark it `superseded` instead.", write)
	del.DefaultStatus = http.StatusNoContent
	del.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: authoring.ReasonSourceCited, Meaning: "a published ruleset's provenance cites the source."}}
	api.Register(s, del, h.deleteSource)

	api.Register(s, op("get-project-source-raw", http.MethodGet, "/projects/{project_id}/sources/{source_id}/raw", "Download a source's bytes",
		"The bytes exactly as uploaded, with their media type, as an attachment (the filename in Content-Disposition), with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox; default-src 'none'`, so that a browser never renders an uploaded page as part of the service's origin.", read), h.raw)

	api.Register(s, op("get-project-source-text", http.MethodGet, "/projects/{project_id}/sources/{source_id}/text", "Read a source's text and what cites it",
		"The source's extracted text (the text quotes are verified against) as `pages`: a PDF's pages in order, numbered from 1, any other source one page. "+
			"`clauses` cut it into the clauses the provenance report's coverage counts (paragraphs, enumerated provisions, sentences), in text order: each with its `page`, its `start` and `end` as UTF-8 byte offsets into that page's `text`, its `text`, "+
			"`counted` (false for a heading or number of fewer than 4 words, which coverage leaves out) and `cited_by`, every citation of the saved draft resting on it: "+
			"a verified quote that overlaps the clause, or an unverified quote whose nearest passage does, each with `criterion_id`, the declared `source_id`, the `quote` and `verified`. An uncited clause has an empty `cited_by`. "+
			"A clause that runs over a page break is given once per page with the same `number`. `unplaced_quotes` are the draft's quotes of this source found nowhere near. "+
			"`coverage` counts clauses as the draft's provenance report does. Quotes are bound to sources as GET .../draft binds them; `draft` says whether there is a compiled draft to read citations from (`none` and `invalid` leave every clause uncited).", read), h.sourceText)
}

// SourceResponse is a source on the wire (exported so that the upload's
// item, which embeds it, is documented with its members).
type SourceResponse struct {
	SourceID        string    `json:"source_id"`
	Filename        string    `json:"filename"`
	MediaType       string    `json:"media_type" enum:"text/plain,text/markdown,text/html,application/pdf"`
	Title           string    `json:"title"`
	URL             string    `json:"url" doc:"Where the text is published; empty for a private file."`
	Licence         string    `json:"licence"`
	Size            int       `json:"size" doc:"Bytes as uploaded."`
	ContentDigest   string    `json:"content_digest" doc:"sha256 of the bytes as uploaded."`
	EstimatedTokens int       `json:"estimated_tokens"`
	Status          string    `json:"status" enum:"active,superseded,reference_only"`
	SupersededBy    *string   `json:"superseded_by"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

// SchemaName is the name of SourceResponse's schema in the published API document,
// where the Go name would not say what it is.
func (SourceResponse) SchemaName() string { return "Source" }

func sourceOut(src store.ProjectSource) SourceResponse {
	o := SourceResponse{SourceID: src.ID, Filename: src.Filename, MediaType: src.MediaType, Title: src.Title, URL: src.URL,
		Licence: src.Licence, Size: src.Size, ContentDigest: src.ContentDigest, EstimatedTokens: src.EstimatedTokens,
		Status: src.Status, CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt}
	if src.SupersededBy != "" {
		o.SupersededBy = &src.SupersededBy
	}
	return o
}

// uploadedSource is a source as an upload reports it: with the earlier
// sources it may duplicate, always present ([] when none).
type uploadedSource struct {
	SourceResponse
	PossibleDuplicates []authoring.Duplicate `json:"possible_duplicates" nullable:"false" doc:"Earlier sources (or earlier files of the same upload) this one may duplicate; empty when none."`
}

// SchemaName is the name of uploadedSource's schema in the published API document,
// where the Go name would not say what it is.
func (uploadedSource) SchemaName() string { return "UploadedSource" }

// uploadResponse is what an upload (or a create) reports.
type uploadResponse struct {
	Sources                []uploadedSource `json:"sources" nullable:"false"`
	ProjectEstimatedTokens int              `json:"project_estimated_tokens" doc:"Tokens of every active source's text."`
	GenerationTokenBudget  int              `json:"generation_token_budget" doc:"The most a generation prompt may count with the default model (generation with another model is held to that model's budget)."`
}

// SchemaName is the name of uploadResponse's schema in the published API document,
// where the Go name would not say what it is.
func (uploadResponse) SchemaName() string { return "SourceUpload" }

func uploadOut(res authoring.UploadResult) uploadResponse {
	o := uploadResponse{Sources: []uploadedSource{}, ProjectEstimatedTokens: res.ProjectEstimatedTokens, GenerationTokenBudget: res.GenerationTokenBudget}
	for _, up := range res.Sources {
		dups := up.PossibleDuplicates
		if dups == nil {
			dups = []authoring.Duplicate{}
		}
		o.Sources = append(o.Sources, uploadedSource{SourceResponse: sourceOut(up.ProjectSource), PossibleDuplicates: dups})
	}
	return o
}

type uploadInput struct {
	ProjectID   string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	ContentType string `header:"Content-Type" doc:"multipart/form-data or application/json."`
	RawBody     []byte
}

type uploadOutput struct {
	Body uploadResponse
}

func (h *handler) upload(ctx context.Context, in *uploadInput) (*uploadOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	uploads, err := decodeUpload(in.ContentType, in.RawBody)
	if err != nil {
		return nil, h.uploadInvalid(err, in.RawBody)
	}
	res, err := h.projects.AddSources(ctx, tenant, in.ProjectID, uploads)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &uploadOutput{Body: uploadOut(res)}, nil
}

// uploadInvalid answers a body decodeUpload refused: the schema
// validator's list for a JSON body it explains, else the decoder's item.
func (h *handler) uploadInvalid(err error, raw []byte) error {
	if bad, ok := err.(*bodyError); ok && bad.json {
		if schemaErr := h.server.BodyErrors(raw, reflect.TypeFor[jsonUpload](), "ProjectSourceUpload"); !isBareBodyError(schemaErr) {
			return schemaErr
		}
	}
	item := api.ValidationItem{Type: "value_error", Loc: []any{"body"}, Msg: "Value error, " + err.Error()}
	if bad, ok := err.(*bodyError); ok {
		item.Type, item.Loc = bad.kind, append([]any{"body"}, bad.loc...)
	}
	return api.ValidationFailed(item)
}

// isBareBodyError reports whether err is BodyErrors' answer for a body the
// schema accepts (the item naming the body as a whole): the decoder's own
// reason is then the more precise.
func isBareBodyError(err error) bool {
	e, ok := err.(*api.Error)
	if !ok {
		return false
	}
	items, ok := e.Detail.([]api.ValidationItem)
	return ok && len(items) == 1 && len(items[0].Loc) == 1
}

// documentUploadBody documents the upload's two body forms.
func documentUploadBody(s *api.Server) {
	item := s.OpenAPI().Paths["/projects/{project_id}/sources"]
	schemas := s.OpenAPI().Components.Schemas
	item.Post.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"application/json": {Schema: schemas.Schema(reflect.TypeFor[jsonUpload](), true, "ProjectSourceUpload")},
		"multipart/form-data": {Schema: &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{
			"file":    {Type: "string", Format: "binary", Description: "One or more file parts."},
			"url":     {Type: "string", Description: "Where the text is published, for every file of the form."},
			"title":   {Type: "string"},
			"licence": {Type: "string"},
		}, Required: []string{"file"}}},
	}}
}

type sourceInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	SourceID  string `path:"source_id" maxLength:"100" doc:"The source id, src_ and 16 URL-safe characters."`
}

var sourceIDPattern = regexp.MustCompile(`^src_[A-Za-z0-9_-]{16}$`)

// sourceTenant is tenantFor for a source path.
func sourceTenant(ctx context.Context, projectID, sourceID string) (string, error) {
	tenant, err := tenantFor(projectID, ctx)
	if err == nil && !sourceIDPattern.MatchString(sourceID) {
		err = api.NotFound("Source " + fmt.Sprintf("%q", sourceID) + " not found.")
	}
	return tenant, err
}

// sourceListResponse is a project's sources as listed: an upload's answer
// without the duplicates, which are found only when a file arrives.
type sourceListResponse struct {
	Sources                []SourceResponse `json:"sources" nullable:"false"`
	ProjectEstimatedTokens int              `json:"project_estimated_tokens" doc:"Tokens of every active source's text."`
	GenerationTokenBudget  int              `json:"generation_token_budget" doc:"The most a generation prompt may count with the default model."`
}

// SchemaName is the name of sourceListResponse's schema in the published API document,
// where the Go name would not say what it is.
func (sourceListResponse) SchemaName() string { return "SourceList" }

type sourcesOutput struct {
	Body sourceListResponse
}

func (h *handler) listSources(ctx context.Context, in *projectInput) (*sourcesOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	rows, err := h.projects.Sources(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	out := sourceListResponse{Sources: []SourceResponse{}, GenerationTokenBudget: h.projects.Limits().TokenBudget}
	for _, src := range rows {
		out.Sources = append(out.Sources, sourceOut(src))
		if src.Status == authoring.StatusActive {
			out.ProjectEstimatedTokens += src.EstimatedTokens
		}
	}
	return &sourcesOutput{Body: out}, nil
}

type patchSourceInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	SourceID  string `path:"source_id" maxLength:"100" doc:"The source id, src_ and 16 URL-safe characters."`
	Body      sourceUpdateRequest
}

// sourceUpdateRequest is patchSourceInput's body, published as SourceUpdateRequest.
type sourceUpdateRequest struct {
	Status       string `json:"status" enum:"active,superseded,reference_only"`
	SupersededBy string `json:"superseded_by,omitempty" maxLength:"100" doc:"With superseded: the project's source that replaces this one."`
}

type sourceOutput struct {
	Body SourceResponse
}

func (h *handler) patchSource(ctx context.Context, in *patchSourceInput) (*sourceOutput, error) {
	tenant, err := sourceTenant(ctx, in.ProjectID, in.SourceID)
	if err != nil {
		return nil, err
	}
	src, err := h.projects.UpdateSource(ctx, tenant, in.ProjectID, in.SourceID, in.Body.Status, in.Body.SupersededBy)
	if err != nil {
		return nil, failed(ctx, err, "Source", in.SourceID)
	}
	return &sourceOutput{Body: sourceOut(src)}, nil
}

func (h *handler) deleteSource(ctx context.Context, in *sourceInput) (*struct{}, error) {
	tenant, err := sourceTenant(ctx, in.ProjectID, in.SourceID)
	if err != nil {
		return nil, err
	}
	if err := h.projects.DeleteSource(ctx, tenant, in.ProjectID, in.SourceID); err != nil {
		return nil, failed(ctx, err, "Source", in.SourceID)
	}
	return nil, nil
}

// rawSandbox is the Content-Security-Policy of a source's raw bytes. The
// bytes are whatever a tenant uploaded (an HTML page, say) and are served
// from the API's origin, which the console shares: the policy makes a
// browser that renders them anyway (a link opened in a tab, an <iframe>)
// treat them as a unique origin that runs no script, submits no form and
// loads nothing, so they can never act with the console's session.
const rawSandbox = "sandbox; default-src 'none'"

type rawOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition" doc:"Always attachment, with the uploaded filename: the bytes are to be saved, never rendered."`
	// NoSniff keeps a browser from guessing a renderable type (HTML
	// from a text or PDF upload, say) in place of ContentType.
	NoSniff string `header:"X-Content-Type-Options" doc:"Always nosniff."`
	// Sandbox is rawSandbox.
	Sandbox string `header:"Content-Security-Policy" doc:"Always \"sandbox; default-src 'none'\": rendered anyway, the bytes run no script and load nothing."`
	Body    []byte
}

func (h *handler) raw(ctx context.Context, in *sourceInput) (*rawOutput, error) {
	tenant, err := sourceTenant(ctx, in.ProjectID, in.SourceID)
	if err != nil {
		return nil, err
	}
	src, err := h.projects.SourceRaw(ctx, tenant, in.ProjectID, in.SourceID)
	if err != nil {
		return nil, failed(ctx, err, "Source", in.SourceID)
	}
	mediaType := src.MediaType
	if strings.HasPrefix(mediaType, "text/") {
		mediaType += "; charset=utf-8"
	}
	return &rawOutput{ContentType: mediaType, ContentDisposition: attachment(src.Filename),
		NoSniff: "nosniff", Sandbox: rawSandbox, Body: src.Content}, nil
}

// sourceTextResponse is a source's text as the studio's source view reads
// it: page by page, in clauses, each with what in the draft cites it.
type sourceTextResponse struct {
	SourceID  string                     `json:"source_id"`
	Filename  string                     `json:"filename"`
	Title     string                     `json:"title"`
	MediaType string                     `json:"media_type" enum:"text/plain,text/markdown,text/html,application/pdf"`
	Status    string                     `json:"status" enum:"active,superseded,reference_only"`
	Draft     string                     `json:"draft" enum:"none,invalid,compiled" doc:"Where the citations come from: compiled, the saved draft's; none, the project has no draft; invalid, the draft does not compile. With none or invalid every clause is uncited."`
	Coverage  authoring.ClauseCoverage   `json:"coverage" doc:"The clauses counted and cited, as the draft's provenance_report.coverage counts them."`
	Pages     []authoring.SourcePage     `json:"pages" nullable:"false" doc:"The extracted text: a PDF's pages in order, any other source one page."`
	Clauses   []authoring.SourceClause   `json:"clauses" nullable:"false" doc:"The clauses in text order, each placed on its page by byte offsets, with cited_by."`
	Unplaced  []authoring.ClauseCitation `json:"unplaced_quotes" nullable:"false" doc:"The draft's quotes of this source that rest on no clause: not found, and no passage near enough."`
}

// SchemaName is the name of sourceTextResponse's schema in the published API document,
// where the Go name would not say what it is.
func (sourceTextResponse) SchemaName() string { return "SourceText" }

type sourceTextOutput struct {
	Body sourceTextResponse
}

func (h *handler) sourceText(ctx context.Context, in *sourceInput) (*sourceTextOutput, error) {
	tenant, err := sourceTenant(ctx, in.ProjectID, in.SourceID)
	if err != nil {
		return nil, err
	}
	st, err := h.drafts.SourceText(ctx, tenant, in.ProjectID, in.SourceID)
	if err != nil {
		return nil, failed(ctx, err, "Source", in.SourceID)
	}
	src := st.Source
	return &sourceTextOutput{Body: sourceTextResponse{SourceID: src.ID, Filename: src.Filename, Title: src.Title, MediaType: src.MediaType,
		Status: src.Status, Draft: st.Draft, Coverage: st.Coverage, Pages: st.Pages, Clauses: st.Clauses, Unplaced: st.Unplaced}}, nil
}

// attachment is the Content-Disposition of a download named filename:
// attachment always, with the name when it can be written (FormatMediaType
// gives "" for one it cannot encode, which would drop the disposition).
func attachment(filename string) string {
	if d := mime.FormatMediaType("attachment", map[string]string{"filename": filename}); d != "" {
		return d
	}
	return "attachment"
}
