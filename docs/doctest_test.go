package docs_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/eligo/eligo/store/storetest"
)

// runDocuments are the documents whose shell blocks run: the front door,
// the tutorial and the guides whose examples need no placeholder promise
// that what they show works as shown. The other pages' blocks illustrate
// (a project id written $P, a file of your own) and are not run.
var runDocuments = []string{"README.md", "docs/tutorial.md", "docs/api.md", "docs/metering.md", "docs/language.md", "docs/verification.md", "docs/impact.md"}

// TestDocumentedCommandsRun runs every ```sh block of runDocuments, in
// order, one shell session per document, against a real `eligo serve`
// built from this tree on a private database seeded as `make run` seeds
// it, and compares each command's output with what the document says it
// is (the conventions are in development.md, "Docs that run"). An example
// the code no longer answers as written fails here.
func TestDocumentedCommandsRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("the documents' examples need bash: %v", err)
	}
	for _, tool := range []string{"curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the documents' examples call %s, which is not installed: %v", tool, err)
		}
	}
	var docs []doc
	for _, rel := range runDocuments {
		docs = append(docs, readDoc(t, rel))
	}
	demo := startDemo(t, docs)
	for _, d := range docs {
		t.Run(strings.ReplaceAll(d.path, "/", "_"), func(t *testing.T) { runDocument(t, demo, d) })
	}
	demo.stop(t)
}

// demo is the running server the documents talk to, as `make run` leaves
// it: the casebank rulesets the documents name published as public demo
// rulesets, and a key of the demo tenant with every scope.
type demo struct {
	root string   // the repository root, absolute
	bin  string   // the eligo binary built from the tree
	env  []string // the environment the documents' shells get
	cmd  *exec.Cmd
	log  *syncBuffer // the server's standard error: its request log
}

// syncBuffer is a bytes.Buffer the server's output can be written to
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDemo builds bin/eligo's twin, creates a private database, seeds it
// and starts `eligo serve` on a free loopback port; the server is stopped
// when the test ends.
func startDemo(t *testing.T, docs []doc) *demo {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "eligo"), "./cmd/eligo")
	build.Dir = abs
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/eligo: %v\n%s", err, out)
	}
	pool := storetest.New(t)
	d := &demo{root: abs, bin: filepath.Join(bin, "eligo"), log: &syncBuffer{}}
	d.env = append(os.Environ(),
		"DATABASE_URL="+pool.Config().ConnString(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	key := strings.TrimSpace(d.eligo(t, "keys", "create", "--tenant", "demo", "--name", "demo", "--tier", "internal", "--scopes", "all"))
	d.seed(t, docs)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// Its own decision spool, not one under the working directory.
	d.cmd = exec.CommandContext(ctx, d.bin, "serve", "--addr", "127.0.0.1:0", "--decision-spool", t.TempDir())
	d.cmd.Env = d.env
	d.cmd.Stderr = d.log
	d.cmd.Cancel = func() error { return d.cmd.Process.Signal(syscall.SIGTERM) }
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting eligo serve: %v", err)
	}
	t.Cleanup(func() {
		if d.cmd.ProcessState == nil {
			_ = d.cmd.Process.Kill()
			_ = d.cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("eligo serve printed no address: %v\n%s", err, d.log.String())
	}
	public := strings.TrimSpace(strings.TrimPrefix(line, "eligo serving on "))
	origin, _, ok := strings.Cut(public, "/api/")
	if !ok {
		t.Fatalf("eligo serve printed %q, not its address", line)
	}
	d.env = append(d.env, "ELIGO_URL="+origin, "ELIGO_API_KEY="+key)
	return d
}

// eligo runs the built binary with args and returns its standard output.
func (d *demo) eligo(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Dir, cmd.Env = d.root, d.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("eligo %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// demoSlug is a demo ruleset or rulebook a document names.
var demoSlug = regexp.MustCompile(`\bdemo(?:/|%2F)([a-z0-9-]+)`)

// seed publishes what the documents name under demo/ the way
// scripts/run.sh does for the whole casebank: a ruleset folder and the
// folders of its later periods (<folder>-<period>, the same `ruleset`
// header) under demo/<folder>, earliest period first, and a rulebook
// folder over the sections published. Publishing only what is named keeps
// the run to seconds.
func (d *demo) seed(t *testing.T, docs []doc) {
	t.Helper()
	named := map[string]bool{}
	for _, doc := range docs {
		raw, err := os.ReadFile(filepath.Join(d.root, doc.path))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range demoSlug.FindAllStringSubmatch(string(raw), -1) {
			named[m[1]] = true
		}
	}
	var rulebooks []string
	for name := range named {
		dir := filepath.Join(d.root, "casebank", name)
		if _, err := os.Stat(filepath.Join(dir, "rulebook.json")); err == nil {
			rulebooks = append(rulebooks, name)
			continue
		}
		for _, folder := range d.periods(t, name) {
			d.eligo(t, "publish", filepath.Join("casebank", folder, folder+".rules"), "--tenant", "demo",
				"--cases", filepath.Join("casebank", folder, "cases.json"), "--public", "--slug", "demo/"+name)
		}
	}
	sort.Strings(rulebooks)
	for _, name := range rulebooks {
		d.eligo(t, "rulebook", "publish", filepath.Join("casebank", name), "--tenant", "demo", "--public", "--slug", "demo/"+name)
	}
}

// periods lists the casebank folders published under demo/<name>: the
// folder itself and each <name>-<period> declaring the same ruleset
// header, in the order of their effective dates. None when the casebank
// has no such folder (a slug the document creates itself).
func (d *demo) periods(t *testing.T, name string) []string {
	t.Helper()
	header := func(folder string) (ruleset, from string) {
		raw, err := os.ReadFile(filepath.Join(d.root, "casebank", folder, folder+".rules"))
		if err != nil {
			return "", ""
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if ruleset == "" && strings.HasPrefix(line, "ruleset ") {
				ruleset = line
			}
			if from == "" && strings.HasPrefix(line, "effective ") {
				from = strings.Fields(line)[1]
			}
		}
		return ruleset, from
	}
	head, _ := header(name)
	if head == "" {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(d.root, "casebank"))
	if err != nil {
		t.Fatal(err)
	}
	type period struct{ folder, from string }
	var family []period
	for _, e := range entries {
		if f := e.Name(); f == name || strings.HasPrefix(f, name+"-") {
			if h, from := header(f); h == head {
				family = append(family, period{f, from})
			}
		}
	}
	sort.Slice(family, func(i, j int) bool { return family[i].from < family[j].from })
	out := make([]string, len(family))
	for i, p := range family {
		out[i] = p.folder
	}
	return out
}

// stop ends the server as SIGTERM does and fails the test if it answered
// any request with a 5xx while the documents ran: no example may lean on
// a server error, even one whose output it does not check.
func (d *demo) stop(t *testing.T) {
	t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("eligo serve ended with %v\n%s", err, d.log.String())
		}
	case <-time.After(60 * time.Second):
		t.Errorf("eligo serve did not stop within a minute of SIGTERM")
		_ = d.cmd.Process.Kill()
	}
	if m := regexp.MustCompile(`(?m)^.*"status":5\d\d.*$`).FindAllString(d.log.String(), -1); m != nil {
		t.Errorf("the server answered %d request(s) of the documents with a 5xx:\n%s", len(m), strings.Join(m, "\n"))
	}
}

// segment is a run of commands of a ```sh block and what the document
// says they print: the `# ->` lines that follow them, or a ```json or
// ```text block that directly follows the sh block.
type segment struct {
	line     int    // the document line of its first command
	commands string // the shell text
	kind     string // "", "text" or "json": how expect is compared
	expect   string
}

// expectLine is a `# -> ...` line: the output of the commands above it.
var expectLine = regexp.MustCompile(`^\s*# ->(?: (.*))?$`)

// segments splits a document's runnable blocks into segments, failing
// the test for a block whose language the harness would silently skip.
func segments(t *testing.T, d doc) []segment {
	t.Helper()
	var out []segment
	for i, b := range d.blocks {
		switch b.lang {
		case "bash", "shell", "console", "zsh", "shell-session":
			t.Errorf("%s:%d: a %s block: write shell as ```sh (or ```sh norun when it must not run)", d.path, b.line, b.lang)
			continue
		case "sh":
		default:
			continue
		}
		if b.has("norun") {
			continue
		}
		cur := segment{line: b.line + 1}
		var cmds, expect []string
		flush := func() {
			if strings.TrimSpace(strings.Join(cmds, "")) == "" && expect == nil {
				return
			}
			cur.commands = strings.Join(cmds, "\n")
			if expect != nil {
				cur.kind, cur.expect = "text", strings.Join(expect, "\n")
			}
			out = append(out, cur)
			cmds, expect = nil, nil
		}
		for j, line := range b.body {
			if m := expectLine.FindStringSubmatch(line); m != nil {
				if strings.TrimSpace(strings.Join(cmds, "")) == "" && expect == nil {
					t.Errorf("%s:%d: `# ->` with no command above it", d.path, b.line+1+j)
				}
				expect = append(expect, m[1])
				continue
			}
			if expect != nil {
				flush()
				cur = segment{line: b.line + 1 + j}
			}
			cmds = append(cmds, line)
		}
		flush()
		if i+1 < len(d.blocks) {
			if next := d.blocks[i+1]; next.follows && (next.lang == "json" || next.lang == "text") {
				last := &out[len(out)-1]
				if last.kind != "" {
					t.Errorf("%s:%d: output stated twice: by `# ->` and by the block below", d.path, next.line)
				}
				last.kind, last.expect = next.lang, strings.Join(next.body, "\n")
			}
		}
	}
	return out
}

// runDocument runs one document's segments in one bash session in a
// scratch folder holding a link to the casebank, and compares outputs.
func runDocument(t *testing.T, demo *demo, d doc) {
	segs := segments(t, d)
	if len(segs) == 0 {
		t.Fatalf("%s has no runnable ```sh block", d.path)
	}
	work, outDir := t.TempDir(), t.TempDir()
	if err := os.Symlink(filepath.Join(demo.root, "casebank"), filepath.Join(work, "casebank")); err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	for i, s := range segs {
		fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q\n: >%q\n", s.commands,
			filepath.Join(outDir, fmt.Sprint(i, ".out")), filepath.Join(outDir, fmt.Sprint(i, ".err")),
			filepath.Join(outDir, fmt.Sprint(i, ".ok")))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env = work, demo.env
	shellOut, runErr := cmd.CombinedOutput()
	read := func(i int, ext string) string {
		raw, _ := os.ReadFile(filepath.Join(outDir, fmt.Sprint(i, ext)))
		return string(raw)
	}
	for i, s := range segs {
		if _, err := os.Stat(filepath.Join(outDir, fmt.Sprint(i, ".ok"))); err != nil {
			t.Fatalf("%s:%d: the commands failed (%v):\n%s\n--- stdout\n%s\n--- stderr\n%s%s",
				d.path, s.line, runErr, s.commands, cut(read(i, ".out")), cut(read(i, ".err")), cut(string(shellOut)))
		}
		got := read(i, ".out")
		var problem string
		switch s.kind {
		case "text":
			if !textMatches(s.expect, got) {
				problem = "the output is not what the document says"
			}
		case "json":
			problem = jsonProblem(s.expect, got)
		}
		if problem != "" {
			t.Errorf("%s:%d: %s\n--- commands\n%s\n--- the document says\n%s\n--- the output\n%s\n--- stderr\n%s",
				d.path, s.line, problem, s.commands, s.expect, cut(got), cut(read(i, ".err")))
		}
	}
	if runErr != nil {
		t.Errorf("the session ended with %v:\n%s", runErr, shellOut)
	}
}

// cut shortens long output for a failure message.
func cut(s string) string {
	if len(s) > 4000 {
		return s[:4000] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// textMatches compares output with a stated text: line ends and the
// blank lines around are not significant, and "..." stands for any text
// (an id, a date, the rest of a line or of the output).
func textMatches(expect, got string) bool {
	norm := func(s string) string {
		lines := strings.Split(s, "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " \t\r")
		}
		return strings.Trim(strings.Join(lines, "\n"), "\n")
	}
	parts := strings.Split(norm(expect), "...")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("(?s)^" + strings.Join(parts, ".*?") + "$").MatchString(norm(got))
}

// jsonProblem compares output, which must be one JSON value, with a
// stated JSON value, and says what differs ("" when nothing does). The
// statement may leave things out: an object's members not stated are
// not compared; an array whose last stated item is "..." need only begin
// with the items before it; the string "..." stands for any value, and a
// string ending in "..." for any string that begins with what precedes.
func jsonProblem(expect, got string) string {
	var want, have any
	if err := json.Unmarshal([]byte(expect), &want); err != nil {
		return fmt.Sprintf("the document's JSON does not parse: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(got))
	dec.UseNumber()
	if err := dec.Decode(&have); err != nil {
		return fmt.Sprintf("the output is not JSON: %v", err)
	}
	if dec.More() {
		return "the output holds more than one JSON value"
	}
	return jsonDiff("$", want, have)
}

// jsonDiff is jsonProblem's comparison at path.
func jsonDiff(path string, want, have any) string {
	if s, ok := want.(string); ok && strings.HasSuffix(s, "...") {
		prefix := strings.TrimSuffix(s, "...")
		if prefix == "" {
			return ""
		}
		if h, ok := have.(string); !ok || !strings.HasPrefix(h, prefix) {
			return fmt.Sprintf("%s: want a string beginning %q, got %v", path, prefix, have)
		}
		return ""
	}
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %v", path, have)
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			hv, ok := h[k]
			if !ok {
				return fmt.Sprintf("%s: no member %q", path, k)
			}
			if p := jsonDiff(path+"."+k, w[k], hv); p != "" {
				return p
			}
		}
		return ""
	case []any:
		h, ok := have.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %v", path, have)
		}
		open := len(w) > 0 && w[len(w)-1] == "..."
		if open {
			w = w[:len(w)-1]
		}
		if len(h) < len(w) || (!open && len(h) != len(w)) {
			return fmt.Sprintf("%s: want %d items, got %d", path, len(w), len(h))
		}
		for i := range w {
			if p := jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], h[i]); p != "" {
				return p
			}
		}
		return ""
	case float64:
		n, ok := have.(json.Number)
		if f, err := n.Float64(); !ok || err != nil || f != w {
			return fmt.Sprintf("%s: want %v, got %v", path, w, have)
		}
		return ""
	default:
		if want != have {
			return fmt.Sprintf("%s: want %v, got %v", path, want, have)
		}
		return ""
	}
}

// TestStatedOutputs pins the comparison rules development.md states, so a
// change to them is a change to that page too.
func TestStatedOutputs(t *testing.T) {
	texts := []struct {
		expect, got string
		match       bool
	}{
		{"201", "201\n", true},
		{"201", "2010\n", false},
		{"prj_...", "prj_AbC123\n", true},
		{"eligible", "not_eligible", false},
		{"a\n...\nc", "a\nb\nb\nc  \n", true},
		{"a\nc", "a\nb\nc", false},
	}
	for _, c := range texts {
		if got := textMatches(c.expect, c.got); got != c.match {
			t.Errorf("textMatches(%q, %q) = %v, want %v", c.expect, c.got, got, c.match)
		}
	}
	jsons := []struct {
		expect, got string
		ok          bool
	}{
		{`{"decision": "eligible"}`, `{"decision": "eligible", "decision_id": "dec_x"}`, true},
		{`{"decision": "eligible"}`, `{"decision": "not_eligible"}`, false},
		{`{"decision_id": "dec_..."}`, `{"decision_id": "dec_x1"}`, true},
		{`{"decision_id": "dec_..."}`, `{"decision_id": "rs_x1"}`, false},
		{`{"x": "..."}`, `{"x": [1, 2]}`, true},
		{`{"x": "..."}`, `{}`, false},
		{`[1, "..."]`, `[1, 2, 3]`, true},
		{`[1, 2]`, `[1, 2, 3]`, false},
		{`{"n": 1250}`, `{"n": 1250.0}`, true},
		{`{"n": 1250}`, `{"n": 1251}`, false},
		{`{"a": true}`, `{"a": true}{"a": true}`, false},
		{`{"a": null}`, `{"a": null}`, true},
	}
	for _, c := range jsons {
		if p := jsonProblem(c.expect, c.got); (p == "") != c.ok {
			t.Errorf("jsonProblem(%s, %s) = %q, want ok=%v", c.expect, c.got, p, c.ok)
		}
	}
}
