package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/lsp"
	"github.com/eligo/eligo/lsp/jsonrpc"
)

// TestLSPHelp: `eligo lsp --help` says what the server does and where the
// editors' set-up is documented.
func TestLSPHelp(t *testing.T) {
	code, out, errOut := eligo(t, "lsp", "--help")
	if code != 0 || !strings.Contains(out, "usage: eligo lsp") || !strings.Contains(out, "docs/editors.md") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := eligo(t, "lsp", "extra"); code == 0 || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("an extra argument: exit %d, stderr %q", code, errOut)
	}
}

// TestLSPProcess runs `eligo lsp --stdio` as an editor does, a child
// process spoken to over its standard input and output: it publishes a
// casebank ruleset's diagnostics (no error, as `eligo check` has none),
// formats it as `eligo fmt` does, and exits 0 after shutdown and exit.
func TestLSPProcess(t *testing.T) {
	t.Parallel()
	args, err := json.Marshal([]string{"lsp", "--stdio"})
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), childArgsEnv+"="+string(args))
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	w, r := jsonrpc.NewWriter(stdin), jsonrpc.NewReader(stdout)
	// await reads up to the response to id, returning it and the
	// notifications before it.
	await := func(id int64) (*jsonrpc.Message, []*jsonrpc.Message) {
		t.Helper()
		var notes []*jsonrpc.Message
		for {
			m, err := r.Read()
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if m.IsNotification() {
				notes = append(notes, m)
				continue
			}
			if string(m.ID) == strconv.FormatInt(id, 10) {
				return m, notes
			}
		}
	}
	path := filepath.Join("..", "..", "casebank", "us-fmla-employee", "us-fmla-employee.rules")
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(abs)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Call(1, "initialize", map[string]any{"capabilities": map[string]any{}}))
	if m, _ := await(1); m.Error != nil || !strings.Contains(string(m.Result), `"hoverProvider":true`) {
		t.Fatalf("initialize: %s %v", m.Result, m.Error)
	}
	must(w.Notify("initialized", map[string]any{}))
	must(w.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "eligo-rules", "version": 1, "text": string(src)}}))
	must(w.Call(2, "textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}}))
	m, notes := await(2)
	var edits []lsp.TextEdit
	if m.Error != nil || json.Unmarshal(m.Result, &edits) != nil {
		t.Fatalf("formatting: %s %v", m.Result, m.Error)
	}
	f, _ := syntax.Parse(path, src)
	if canonical := string(syntax.Print(f)) == string(src); canonical != (len(edits) == 0) {
		t.Errorf("formatting a file that is canonical (%v) gives %d edits", canonical, len(edits))
	}
	// The diagnostics: those read so far, and those up to the first
	// publication for the file.
	for published := false; !published; {
		for _, n := range notes {
			published = published || n.Method == "textDocument/publishDiagnostics" && strings.Contains(string(n.Params), uri)
		}
		if !published {
			n, err := r.Read()
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			notes = append(notes, n)
		}
	}
	must(w.Call(3, "shutdown", nil))
	_, more := await(3)
	published := false
	for _, n := range append(notes, more...) {
		var p lsp.PublishDiagnosticsParams
		if n.Method != "textDocument/publishDiagnostics" || json.Unmarshal(n.Params, &p) != nil || p.URI != uri {
			continue
		}
		published = true
		for _, d := range p.Diagnostics {
			if d.Severity == lsp.SeverityError {
				t.Errorf("error on a casebank ruleset: %+v", d)
			}
		}
	}
	if !published {
		t.Error("no diagnostics published before shutdown was answered")
	}
	must(w.Notify("exit", nil))
	if err := child.Wait(); err != nil {
		t.Errorf("eligo lsp exited: %v", err)
	}
}
