package projects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/impact"
	"github.com/eligo/eligo/store"
)

// The bounds of a caseload upload (docs/limits.md#caseloads). The body is
// streamed: checked row by row and stored chunk by chunk as it arrives,
// within the caller's body cap (32 MiB for a keyed caller by default),
// so the upload holds a bounded window of it whatever its size;
// MaxCaseloadBytes bounds it again whatever that cap is set to, since the
// rows allowed (MaxCaseloadRows) bound a run's time.
const (
	// MaxCaseloadBytes is the largest caseload kept, in bytes.
	MaxCaseloadBytes = 32 << 20
	// MaxCaseloadRows is the most rows (cases and bad rows) a caseload
	// may hold: a run of that many takes well under a minute of one core
	// (docs/performance.md#caseload-impact).
	MaxCaseloadRows = 1_000_000
	// MaxCaseloads is the most caseloads one project holds at once.
	MaxCaseloads = 20
	// CaseloadScanTimeout bounds the upload's check of a file.
	CaseloadScanTimeout = time.Minute
	// DefaultCaseloadRetentionDays is how long a caseload is kept unless
	// the upload asks for less; it is also the most.
	DefaultCaseloadRetentionDays = 90
)

// The reason codes of caseload uploads.
const (
	ReasonCaseloadTooLarge   = "caseload_too_large"
	ReasonCaseloadLimit      = "caseload_limit"
	ReasonCaseloadUnreadable = "caseload_unreadable"
)

var caseloadIDPattern = regexp.MustCompile(`^cld_[A-Za-z0-9_-]{16}$`)

// caseloadRefusals are an upload's refusals.
var caseloadRefusals = []api.Refusal{
	{Status: http.StatusRequestEntityTooLarge, ReasonCode: ReasonCaseloadTooLarge, Meaning: fmt.Sprintf(
		"the file is over %d bytes or %d rows; split it.", MaxCaseloadBytes, MaxCaseloadRows)},
	{Status: http.StatusRequestEntityTooLarge, ReasonCode: ReasonCaseloadLimit, Meaning: fmt.Sprintf(
		"the project holds %d caseloads, the most it may; delete one.", MaxCaseloads)},
	{Status: http.StatusUnprocessableEntity, ReasonCode: ReasonCaseloadUnreadable, Meaning: fmt.Sprintf(
		"the file cannot be read as a whole: a CSV header that cannot be read (a column named twice or not at all), or a check that took over %s. A row that cannot be read is not refused: it is counted under `bad_rows`.", CaseloadScanTimeout)},
}

const caseloadDoc = "A caseload is private to its tenant: another tenant's is 404, and no operation ever returns its answers, only its counts."

func registerCaseloads(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route) {
	read := []auth.Scope{auth.ScopeProjectsRead}
	write := []auth.Scope{auth.ScopeProjectsWrite}

	upload := op("upload-project-caseload", http.MethodPost, "/projects/{project_id}/caseloads", "Upload a caseload",
		fmt.Sprintf("Keeps a file of applicants' answers for impact runs (docs/impact.md): the body is the file itself, JSON Lines (`application/x-ndjson`) or CSV (`text/csv`), "+
			"one case per line or record as `eligo impact` reads it. `format` (jsonl or csv) overrides the Content-Type; without either, a `filename` ending in .csv is CSV and anything else JSON Lines. "+
			"The file is read row by row as a run reads it while it streams in and is kept, never held whole: a row that cannot be read (not JSON, a cell too many, a decision_date that is not a date) is counted under `bad_rows` by reason with its first line numbers, and the upload goes on. "+
			"A CSV cell's type is checked by each run, against its rulesets' fields. "+
			"`retention_days` (1 to %d, default %d) is how long the caseload is kept; it is deleted with its impact runs then, or by DELETE. "+
			"Limits: %d bytes and %d rows per file (413 `%s`), %d caseloads per project (413 `%s`), and the request body cap of a keyed caller. "+caseloadDoc,
			DefaultCaseloadRetentionDays, DefaultCaseloadRetentionDays, MaxCaseloadBytes, MaxCaseloadRows, ReasonCaseloadTooLarge, MaxCaseloads, ReasonCaseloadLimit), write)
	upload.DefaultStatus, upload.Refusals, upload.Idempotent, upload.StreamBody = http.StatusCreated, caseloadRefusals, true, true
	api.Register(s, upload, h.uploadCaseload)
	documentCaseloadBody(s)

	registerCaseloadFromLog(s, h, op, write)

	api.Register(s, op("list-project-caseloads", http.MethodGet, "/projects/{project_id}/caseloads", "List caseloads",
		"The project's caseloads in upload order, each with its counts and expiry (never its answers). "+caseloadDoc, read), h.listCaseloads)

	api.Register(s, op("get-project-caseload", http.MethodGet, "/projects/{project_id}/caseloads/{caseload_id}", "Get a caseload",
		"The caseload's name, format, size, digest, row counts, bad rows and expiry (never its answers). Bad rows' line numbers are shown only to a key with `caseloads:read`. "+caseloadDoc, read), h.getCaseload)

	del := op("delete-project-caseload", http.MethodDelete, "/projects/{project_id}/caseloads/{caseload_id}", "Delete a caseload",
		"Removes the caseload and its impact runs (a run under way stops). "+caseloadDoc, write)
	del.DefaultStatus = http.StatusNoContent
	api.Register(s, del, h.deleteCaseload)
}

// CaseloadResponse is a caseload on the wire: what it is and what its
// check found, never its answers.
type CaseloadResponse struct {
	CaseloadID    string           `json:"caseload_id" doc:"cld_ and 16 URL-safe characters."`
	ProjectID     string           `json:"project_id"`
	Filename      string           `json:"filename"`
	Format        string           `json:"format" enum:"jsonl,csv"`
	Size          int64            `json:"size" doc:"Bytes as uploaded."`
	ContentDigest string           `json:"content_digest" doc:"sha256 of the bytes as uploaded."`
	Rows          int64            `json:"rows" doc:"Rows read, bad ones included (blank lines are not rows): a run's progress counts to this."`
	Cases         int64            `json:"cases" doc:"Rows that read as cases."`
	BadRows       []caseloadReason `json:"bad_rows" nullable:"false" doc:"Rows that could not be read, by reason, most frequent first."`
	CreatedAt     time.Time        `json:"created_at"`
	ExpiresAt     time.Time        `json:"expires_at" doc:"When the caseload and its runs are deleted."`
}

// SchemaName is the name of CaseloadResponse's schema in the published
// API document, where the Go name would not say what it is.
func (CaseloadResponse) SchemaName() string { return "Caseload" }

// caseloadReason is a reason some rows were bad, with the first line
// numbers only for a key that may see them.
type caseloadReason struct {
	Reason string  `json:"reason" doc:"What is wrong, in a sentence that names no answer."`
	Count  int64   `json:"count"`
	Lines  []int64 `json:"lines" nullable:"false" doc:"The first line numbers (at most 10); empty unless the key carries caseloads:read."`
}

// SchemaName is the name of caseloadReason's schema in the published API
// document, where the Go name would not say what it is.
func (caseloadReason) SchemaName() string { return "CaseloadBadRows" }

// seesCases reports whether the caller's key may see what identifies a
// case of a caseload: references and line numbers.
func seesCases(ctx context.Context) bool {
	p, _ := auth.PrincipalFrom(ctx)
	return p.Has(auth.ScopeCaseloadsRead)
}

// linesFor is lines for a caller that may see them, else none.
func linesFor(ctx context.Context, lines []int64) []int64 {
	if !seesCases(ctx) || lines == nil {
		return []int64{}
	}
	return lines
}

func caseloadOut(ctx context.Context, c store.Caseload) (CaseloadResponse, error) {
	var bad []impact.Reason
	if err := json.Unmarshal(c.BadRows, &bad); err != nil {
		return CaseloadResponse{}, fmt.Errorf("read caseload %s's bad rows: %w", c.ID, err)
	}
	out := CaseloadResponse{CaseloadID: c.ID, ProjectID: c.ProjectID, Filename: c.Filename, Format: c.Format, Size: c.Size,
		ContentDigest: c.ContentDigest, Rows: c.Rows, Cases: c.Cases, BadRows: []caseloadReason{}, CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt}
	for _, b := range bad {
		out.BadRows = append(out.BadRows, caseloadReason{Reason: b.Reason, Count: b.Count, Lines: linesFor(ctx, b.Lines)})
	}
	return out, nil
}

type caseloadUploadInput struct {
	ProjectID     string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	ContentType   string `header:"Content-Type" doc:"application/x-ndjson (or application/jsonl) for JSON Lines, text/csv for CSV; anything else leaves the format to format or filename."`
	Filename      string `query:"filename" maxLength:"255" doc:"The file's name, kept for reference; default caseload.jsonl or caseload.csv."`
	Format        string `query:"format" enum:"jsonl,csv" doc:"jsonl or csv: the format, whatever the Content-Type says."`
	RetentionDays int    `query:"retention_days" minimum:"0" maximum:"90" doc:"Days the caseload is kept, 1 to 90; 0 or absent means 90."`
	// body is the request's body, read as a stream (api.Route.StreamBody).
	body io.Reader
}

// Resolve takes the request's body as a stream, which huma leaves unread
// for an input without a body member.
func (in *caseloadUploadInput) Resolve(ctx huma.Context) []error {
	in.body = ctx.BodyReader()
	return nil
}

type caseloadOutput struct {
	Body CaseloadResponse
}

// caseloadFormat works out an upload's format from the format parameter,
// else the Content-Type, else the filename.
func caseloadFormat(format, contentType, filename string) impact.Format {
	if format != "" {
		f, _ := impact.ParseFormat(format) // the enum admits only jsonl and csv
		return f
	}
	media, _, _ := mime.ParseMediaType(contentType)
	switch media {
	case "text/csv", "application/csv":
		return impact.CSV
	case "application/x-ndjson", "application/jsonl", "application/json-lines", "application/x-jsonlines":
		return impact.JSONLines
	}
	return impact.FormatOf(filename)
}

func (h *handler) uploadCaseload(ctx context.Context, in *caseloadUploadInput) (*caseloadOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if _, err := h.projects.Project(ctx, tenant, in.ProjectID); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	if err := checkFilename(in.Filename, "query", "filename"); err != nil {
		return nil, err
	}
	format := caseloadFormat(in.Format, in.ContentType, in.Filename)
	filename := in.Filename
	if filename == "" {
		filename = "caseload." + format.String()
	}
	return h.keepCaseload(ctx, tenant, in.ProjectID, filename, format, in.RetentionDays, time.Time{}, in.body)
}

// keepCaseload checks a caseload file of the tenant's project as a run
// reads it, row by row as it streams into the store (scanCaseload), and
// keeps it for retentionDays (0: the default) and, when expiresBy is set,
// no later than then: the one path of an upload and of a caseload made
// from the decision log, with the same limits.
func (h *handler) keepCaseload(ctx context.Context, tenant, projectID, filename string, format impact.Format, retentionDays int, expiresBy time.Time,
	body io.Reader) (*caseloadOutput, error) {
	if retentionDays == 0 {
		retentionDays = DefaultCaseloadRetentionDays
	}
	c, err := h.store.AddCaseload(ctx, store.Caseload{ProjectID: projectID, TenantID: tenant, Filename: filename, Format: format.String(),
		Retention: time.Duration(retentionDays) * 24 * time.Hour, ExpiresAt: expiresBy}, MaxCaseloads, func(w io.Writer) (store.Caseload, error) {
		return scanCaseload(ctx, body, w, format)
	})
	var problem *api.Error
	switch {
	case errors.As(err, &problem):
		return nil, problem // the body could not be read
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	}
	if errors.Is(err, store.ErrCaseloadLimit) {
		err = &authoring.RefusedError{Kind: authoring.TooLarge, Reason: ReasonCaseloadLimit,
			Message: fmt.Sprintf("The project holds %d caseloads, the most it may; delete one first.", MaxCaseloads)}
	}
	if err != nil {
		return nil, failed(ctx, err, "Project", projectID)
	}
	out, err := caseloadOut(ctx, c)
	if err != nil {
		return nil, failed(ctx, err, "Caseload", c.ID)
	}
	return &caseloadOutput{Body: out}, nil
}

// scanCaseload copies an upload's body to w (the store's writer), checking
// it row by row as it goes (impact.Scan), and returns its counts or its
// refusal: too large (bytes or rows), or unreadable as a whole.
func scanCaseload(ctx context.Context, body io.Reader, w io.Writer, format impact.Format) (store.Caseload, error) {
	scanCtx, cancel := context.WithTimeout(ctx, CaseloadScanTimeout)
	defer cancel()
	limited := &io.LimitedReader{R: body, N: MaxCaseloadBytes + 1}
	sink := &storeWriter{w: w}
	tee := io.TeeReader(uploadReader{limited}, sink)
	sum, err := impact.Scan(scanCtx, tee, format, MaxCaseloadRows)
	if err == nil {
		_, err = io.Copy(io.Discard, tee) // whatever the scan left unread
	}
	var bodyErr *uploadError
	switch {
	case sink.err != nil:
		return store.Caseload{}, sink.err
	case limited.N == 0:
		return store.Caseload{}, caseloadTooLarge(fmt.Sprintf("The caseload is over %d bytes, the most kept; split it.", MaxCaseloadBytes))
	case errors.Is(err, impact.ErrTooManyRows):
		return store.Caseload{}, caseloadTooLarge(fmt.Sprintf("The caseload has more than %d rows, the most kept; split it.", MaxCaseloadRows))
	case errors.As(err, &bodyErr):
		// Before the request's context: a body that stopped arriving in
		// time ends the connection, and with it the context, yet it is
		// the body's fault (408), not a caller who hung up.
		return store.Caseload{}, api.BodyReadFailed(bodyErr.err)
	case err != nil && ctx.Err() != nil:
		return store.Caseload{}, ctx.Err()
	case err != nil:
		return store.Caseload{}, &authoring.RefusedError{Kind: authoring.Unprocessable, Reason: ReasonCaseloadUnreadable,
			Message: "The caseload cannot be read: " + err.Error() + "."}
	}
	badRows, err := json.Marshal(sum.BadRows)
	if err != nil {
		return store.Caseload{}, fmt.Errorf("encode bad rows: %w", err)
	}
	return store.Caseload{Rows: sum.Rows, Cases: sum.Cases, BadRows: badRows}, nil
}

// uploadReader marks the errors of reading an upload's body, so that a
// body that breaks off or outgrows the caller's cap is told from a file
// that cannot be read.
type uploadReader struct{ r io.Reader }

func (b uploadReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = &uploadError{err}
	}
	return n, err
}

// uploadError is a failed read of an upload's body.
type uploadError struct{ err error }

func (e *uploadError) Error() string { return "read the request body: " + e.err.Error() }
func (e *uploadError) Unwrap() error { return e.err }

// storeWriter remembers the store's failure to keep the bytes written, so
// that it is answered as the server's error, not the file's.
type storeWriter struct {
	w   io.Writer
	err error
}

func (s *storeWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// checkFilename refuses, as a validation error at loc, a caseload's name
// the database cannot keep as text: one holding a NUL character or bytes
// that are not UTF-8 (which a query string may carry).
func checkFilename(name string, loc ...any) error {
	if utf8.ValidString(name) && !strings.ContainsRune(name, 0) {
		return nil
	}
	return api.ValidationFailed(api.ValidationItem{Type: "string_type", Loc: loc,
		Msg: "Input should be a valid file name: UTF-8 text without NUL characters", Input: strings.ToValidUTF8(name, "\uFFFD")})
}

func caseloadTooLarge(msg string) error {
	return &authoring.RefusedError{Kind: authoring.TooLarge, Reason: ReasonCaseloadTooLarge, Message: msg}
}

// documentCaseloadBody documents the upload's body: the file's bytes.
func documentCaseloadBody(s *api.Server) {
	item := s.OpenAPI().Paths["/projects/{project_id}/caseloads"]
	file := &huma.Schema{Type: "string", Format: "binary", Description: "The caseload file."}
	item.Post.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"application/x-ndjson": {Schema: file},
		"text/csv":             {Schema: file},
	}}
}

type caseloadListResponse struct {
	Caseloads []CaseloadResponse `json:"caseloads" nullable:"false"`
}

// SchemaName is the name of caseloadListResponse's schema in the published
// API document, where the Go name would not say what it is.
func (caseloadListResponse) SchemaName() string { return "CaseloadList" }

type caseloadListOutput struct {
	Body caseloadListResponse
}

func (h *handler) listCaseloads(ctx context.Context, in *projectInput) (*caseloadListOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if _, err := h.projects.Project(ctx, tenant, in.ProjectID); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	rows, err := h.store.Caseloads(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	out := caseloadListResponse{Caseloads: []CaseloadResponse{}}
	for _, c := range rows {
		o, err := caseloadOut(ctx, c)
		if err != nil {
			return nil, failed(ctx, err, "Caseload", c.ID)
		}
		out.Caseloads = append(out.Caseloads, o)
	}
	return &caseloadListOutput{Body: out}, nil
}

type caseloadInput struct {
	ProjectID  string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	CaseloadID string `path:"caseload_id" maxLength:"100" doc:"The caseload id, cld_ and 16 URL-safe characters."`
}

// caseloadTenant is tenantFor for a caseload path.
func caseloadTenant(ctx context.Context, projectID, caseloadID string) (string, error) {
	tenant, err := tenantFor(projectID, ctx)
	if err == nil && !caseloadIDPattern.MatchString(caseloadID) {
		err = api.NotFound(fmt.Sprintf("Caseload %q not found.", caseloadID))
	}
	return tenant, err
}

func (h *handler) getCaseload(ctx context.Context, in *caseloadInput) (*caseloadOutput, error) {
	tenant, err := caseloadTenant(ctx, in.ProjectID, in.CaseloadID)
	if err != nil {
		return nil, err
	}
	c, err := h.store.CaseloadOf(ctx, tenant, in.ProjectID, in.CaseloadID)
	if err != nil {
		return nil, failed(ctx, err, "Caseload", in.CaseloadID)
	}
	out, err := caseloadOut(ctx, c)
	if err != nil {
		return nil, failed(ctx, err, "Caseload", c.ID)
	}
	return &caseloadOutput{Body: out}, nil
}

func (h *handler) deleteCaseload(ctx context.Context, in *caseloadInput) (*struct{}, error) {
	tenant, err := caseloadTenant(ctx, in.ProjectID, in.CaseloadID)
	if err != nil {
		return nil, err
	}
	if err := h.store.DeleteCaseload(ctx, tenant, in.ProjectID, in.CaseloadID); err != nil {
		return nil, failed(ctx, err, "Caseload", in.CaseloadID)
	}
	return nil, nil
}
