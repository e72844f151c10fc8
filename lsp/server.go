// Package lsp is `eligo lsp`: a language server for the rules language
// over the Language Server Protocol, on standard input and output. It
// gives an editor the compiler's knowledge: errors and warnings at their
// exact ranges with the compiler's suggestions as quick fixes, failing
// cases and unverified quotes of the ruleset's folder, the solver's
// findings (computed in the background within a budget, so typing never
// waits for Z3), canonical formatting, hover, navigation, the outline and
// completion.
//
// Requests are answered on the loop that reads them, from the text of the
// document's latest version; diagnostics are computed by one worker per
// document, which a newer version cancels, so a storm of edits ends with
// the diagnostics of the last version only.
package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/eligo/eligo/lsp/jsonrpc"
)

// Options tune a Server.
type Options struct {
	// AnalysisBudget bounds the solver's static analysis of one version of
	// a document, 5 s when zero: past it the findings decided so far are
	// shown with a note that the analysis is incomplete.
	AnalysisBudget time.Duration
	// CheckBudget bounds each Z3 check of the analysis, 1 s when zero,
	// so that one hard question does not eat the whole budget.
	CheckBudget time.Duration
}

// DefaultAnalysisBudget is Options.AnalysisBudget's default.
const DefaultAnalysisBudget = 5 * time.Second

// Server is one language server connection's state: its open documents.
type Server struct {
	opts Options
	out  *jsonrpc.Writer

	mu   sync.Mutex
	docs map[string]*document
	// workers counts the documents' workers, for shutdown to wait on.
	workers sync.WaitGroup
}

// document is one open document.
type document struct {
	uri  string
	path string
	// wake tells the worker there is a newer version to analyse.
	wake chan struct{}
	// stop ends the worker.
	stop context.CancelFunc

	// mu guards the members below, and orders publications: one is
	// written only while its version is still the latest.
	mu      sync.Mutex
	version int32
	text    string
	closed  bool
	// cancel cancels the analysis under way, if any.
	cancel context.CancelFunc
	// last is the latest text compiled, which the worker and the requests
	// about the same text share (it is never changed once made).
	last *compiled
	// published is the latest publication written (its JSON), so that a
	// save or a second pass that finds nothing new publishes nothing: an
	// editor is told each set of diagnostics once.
	published []byte
	// analysed is the version whose analysis was last published in full:
	// diagnosing it again (a save, for the folder's cases and source text)
	// publishes only the full result, never first the partial one.
	analysed int32
	// hasAnalysed says whether analysed holds a version.
	hasAnalysed bool
}

// compiled is the latest text compiled, compiling it when it changed
// since the last request.
func (d *document) compiled() *compiled {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.compiledLocked()
}

// begin starts the diagnosis of the latest version: it sets *version,
// makes cancel the one a newer version calls, and returns the version
// compiled and whether its analysis was already published in full (it is
// being diagnosed again after a save).
func (d *document) begin(version *int32, cancel context.CancelFunc) (c *compiled, again bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	*version, d.cancel = d.version, cancel
	return d.compiledLocked(), d.hasAnalysed && d.analysed == d.version
}

// compiledLocked is compiled for a caller holding d.mu.
func (d *document) compiledLocked() *compiled {
	if d.last == nil || d.last.text.src != d.text {
		d.last = compile(d.path, d.text)
	}
	return d.last
}

// Serve runs a language server on in and out until the client sends exit
// or closes in, or ctx ends. It returns nil after an orderly exit.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.AnalysisBudget <= 0 {
		opts.AnalysisBudget = DefaultAnalysisBudget
	}
	if opts.CheckBudget <= 0 {
		opts.CheckBudget = time.Second
	}
	s := &Server{opts: opts, out: jsonrpc.NewWriter(out), docs: map[string]*document{}}
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.workers.Wait()
	}()
	msgs, errc := make(chan *jsonrpc.Message), make(chan error, 1)
	go func() {
		r := jsonrpc.NewReader(in)
		for {
			m, err := r.Read()
			var rerr *jsonrpc.Error
			if errors.As(err, &rerr) {
				// A body that is not JSON-RPC: answer it and read on.
				_ = s.out.Reply(json.RawMessage("null"), nil, rerr)
				continue
			}
			if err != nil {
				errc <- err
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("lsp: read: %w", err)
		case m := <-msgs:
			if m.Method == "exit" {
				return nil
			}
			if err := s.handle(ctx, m); err != nil {
				return err
			}
		}
	}
}

// handle answers one message; an error is a write that failed, which ends
// the connection.
func (s *Server) handle(ctx context.Context, m *jsonrpc.Message) error {
	if !m.IsRequest() {
		if m.IsNotification() {
			s.notification(ctx, m)
		}
		return nil // a response: the server sends no requests
	}
	result, rerr := s.safeRequest(m)
	return s.out.Reply(m.ID, result, rerr)
}

// safeRequest answers one request; a bug that panics costs that request
// an internal error, not the editor its server.
func (s *Server) safeRequest(m *jsonrpc.Message) (result any, rerr *jsonrpc.Error) {
	defer func() {
		if r := recover(); r != nil {
			result, rerr = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("eligo lsp failed on %s: %v", m.Method, r)}
		}
	}()
	return s.request(m)
}

// request answers one request.
func (s *Server) request(m *jsonrpc.Message) (any, *jsonrpc.Error) {
	switch m.Method {
	case "initialize":
		return s.initialize(), nil
	case "shutdown":
		s.shutdown()
		return nil, nil
	case "textDocument/formatting":
		return withDoc(s, m.Params, func(p DocumentParams) string { return p.TextDocument.URI }, s.format)
	case "textDocument/hover":
		return withDoc(s, m.Params, positionURI, s.hover)
	case "textDocument/definition":
		return withDoc(s, m.Params, positionURI, s.definition)
	case "textDocument/references":
		return withDoc(s, m.Params, positionURI, s.references)
	case "textDocument/completion":
		return withDoc(s, m.Params, positionURI, s.completion)
	case "textDocument/documentSymbol":
		return withDoc(s, m.Params, func(p DocumentParams) string { return p.TextDocument.URI }, s.symbols)
	case "textDocument/codeAction":
		return withDoc(s, m.Params, func(p CodeActionParams) string { return p.TextDocument.URI }, s.codeActions)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "eligo lsp does not implement " + m.Method}
}

func positionURI(p PositionParams) string { return p.TextDocument.URI }

// withDoc decodes a request's params, compiles the latest version of the
// document they name and calls f with both: a request about a document
// that is not open is an error.
func withDoc[P any](s *Server, raw json.RawMessage, uri func(P) string, f func(*compiled, string, P) (any, *jsonrpc.Error)) (any, *jsonrpc.Error) {
	var p P
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the params do not decode: " + err.Error()}
	}
	d := s.doc(uri(p))
	if d == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeRequestFailed, Message: "the document " + uri(p) + " is not open"}
	}
	return f(d.compiled(), d.uri, p)
}

// initialize says what the server can do.
func (s *Server) initialize() InitializeResult {
	var r InitializeResult
	r.ServerInfo.Name = "eligo lsp"
	r.Capabilities = map[string]any{
		// Incremental changes; a save checks the document again, since
		// the cases.json or source text beside it may have changed too.
		"textDocumentSync":           map[string]any{"openClose": true, "change": 2, "save": map[string]any{"includeText": false}},
		"documentFormattingProvider": true,
		"hoverProvider":              true,
		"definitionProvider":         true,
		"referencesProvider":         true,
		"documentSymbolProvider":     true,
		"completionProvider":         map[string]any{"triggerCharacters": []string{".", "\"", "["}},
		"codeActionProvider":         map[string]any{"codeActionKinds": []string{"quickfix"}},
	}
	return r
}

// shutdown stops every document's analysis and waits for the workers, so
// that every notification the server will send precedes its answer.
func (s *Server) shutdown() {
	s.mu.Lock()
	for uri, d := range s.docs {
		d.stop()
		delete(s.docs, uri)
	}
	s.mu.Unlock()
	s.workers.Wait()
}

// notification handles the document notifications; others are ignored,
// as the protocol asks.
func (s *Server) notification(ctx context.Context, m *jsonrpc.Message) {
	switch m.Method {
	case "textDocument/didOpen":
		var p DidOpenParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		s.open(ctx, p.TextDocument)
	case "textDocument/didChange":
		var p DidChangeParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if d := s.doc(p.TextDocument.URI); d != nil {
			d.change(p.TextDocument.Version, p.ContentChanges)
		}
	case "textDocument/didSave":
		// The folder's cases or source text may have changed with it.
		var p DidCloseParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if d := s.doc(p.TextDocument.URI); d != nil {
			d.poke()
		}
	case "textDocument/didClose":
		var p DidCloseParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		s.mu.Lock()
		d := s.docs[p.TextDocument.URI]
		delete(s.docs, p.TextDocument.URI)
		s.mu.Unlock()
		if d != nil {
			d.close(s.out)
		}
	}
}

// doc is the open document uri names, or nil.
func (s *Server) doc(uri string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// open starts tracking a document and its worker.
func (s *Server) open(ctx context.Context, item TextDocumentItem) {
	wctx, stop := context.WithCancel(ctx)
	d := &document{uri: item.URI, path: pathOf(item.URI), wake: make(chan struct{}, 1), stop: stop, version: item.Version, text: item.Text}
	s.mu.Lock()
	if old := s.docs[item.URI]; old != nil {
		old.stop()
	}
	s.docs[item.URI] = d
	s.mu.Unlock()
	s.workers.Add(1)
	go func() {
		defer s.workers.Done()
		s.work(wctx, d)
	}()
	d.poke()
}

// change applies a didChange and cancels the analysis of the version it
// replaces.
func (d *document) change(version int32, changes []ContentChange) {
	d.mu.Lock()
	for _, c := range changes {
		d.text = newText(d.text).apply(c)
	}
	d.version = version
	if d.cancel != nil {
		d.cancel()
	}
	d.mu.Unlock()
	d.poke()
}

// poke wakes the worker; a wake already pending covers this one too.
func (d *document) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// close stops the worker and clears the document's diagnostics.
func (d *document) close(out *jsonrpc.Writer) {
	d.stop()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.cancel != nil {
		d.cancel()
	}
	d.published = nil
	_ = out.Notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: d.uri, Version: d.version, Diagnostics: []Diagnostic{}})
}

// work is a document's worker: for each newest version, the diagnostics
// of the compiler and of the folder's files at once, then again with the
// effective periods beside it and the solver's findings once the analysis
// is done. A newer version cancels
// the analysis, and a version no longer the latest publishes nothing.
func (s *Server) work(ctx context.Context, d *document) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
		s.diagnose(ctx, d)
	}
}

// diagnose computes and publishes the diagnostics of the document's
// latest version. A bug that panics costs that version its diagnostics
// (the editor is told so in one), not the editor its server.
func (s *Server) diagnose(ctx context.Context, d *document) {
	var version int32
	defer func() {
		if r := recover(); r != nil {
			d.publish(s.out, version, []Diagnostic{{Severity: SeverityError, Source: sourceCompile, Message: fmt.Sprintf("eligo lsp failed to check this version: %v", r)}})
		}
	}()
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, again := d.begin(&version, cancel)
	diags := append(c.compileDiagnostics(), c.folderDiagnostics(d.path)...)
	if c.ruleset == nil {
		d.publish(s.out, version, diags)
		return
	}
	if !again && !d.publish(s.out, version, diags) {
		return
	}
	later := c.periodDiagnostics(d.path)
	findings, err := c.analysisDiagnostics(actx, s.opts.AnalysisBudget, s.opts.CheckBudget)
	if err == nil && d.publish(s.out, version, slices.Concat(diags, later, findings)) {
		d.markAnalysed(version)
	}
}

// markAnalysed records that version's analysis was published in full.
func (d *document) markAnalysed(version int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.analysed, d.hasAnalysed = version, true
}

// publish writes the diagnostics of version if it is still the latest,
// and reports whether it was.
func (d *document) publish(out *jsonrpc.Writer, version int32, diags []Diagnostic) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.version != version {
		return false
	}
	if diags == nil {
		diags = []Diagnostic{}
	}
	params := PublishDiagnosticsParams{URI: d.uri, Version: version, Diagnostics: diags}
	encoded, err := json.Marshal(params)
	if err != nil {
		return false
	}
	if bytes.Equal(encoded, d.published) {
		return true
	}
	if out.Notify("textDocument/publishDiagnostics", params) != nil {
		return false
	}
	d.published = encoded
	return true
}
