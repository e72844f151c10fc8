package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/eligo/eligo/lsp"
	"github.com/eligo/eligo/lsp/jsonrpc"
)

// client is a language client speaking JSON-RPC to a Server over real
// pipes, as an editor does over a child process's standard input and
// output.
type client struct {
	t      *testing.T
	w      *jsonrpc.Writer
	in     *os.File // the server's standard input, the client's end
	msgs   chan *jsonrpc.Message
	nextID int64
	// notes are the notifications read so far, in order.
	notes []*jsonrpc.Message
	// done receives what Serve returned.
	done chan error
}

// start runs a server on pipes and initializes it.
func start(t *testing.T, opts lsp.Options) *client {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, w: jsonrpc.NewWriter(inW), in: inW, msgs: make(chan *jsonrpc.Message, 1024), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c.done <- lsp.Serve(ctx, inR, outW, opts)
		outW.Close()
	}()
	go func() {
		r := jsonrpc.NewReader(outR)
		for {
			m, err := r.Read()
			if err != nil {
				close(c.msgs)
				return
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		c.in.Close()
		<-c.done
		cancel()
		inR.Close()
		outR.Close()
	})
	var init lsp.InitializeResult
	c.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &init)
	c.notify("initialized", map[string]any{})
	return c
}

// next reads the next message the server sends, noting notifications.
func (c *client) next() *jsonrpc.Message {
	c.t.Helper()
	m, ok := <-c.msgs
	if !ok {
		c.t.Fatal("the server closed its output")
	}
	if m.IsNotification() {
		c.notes = append(c.notes, m)
	}
	return m
}

// send writes a request and returns its id.
func (c *client) send(method string, params any) int64 {
	c.t.Helper()
	c.nextID++
	if err := c.w.Call(c.nextID, method, params); err != nil {
		c.t.Fatal(err)
	}
	return c.nextID
}

// await reads until the response to id and returns it.
func (c *client) await(id int64) *jsonrpc.Message {
	c.t.Helper()
	for {
		m := c.next()
		if !m.IsNotification() && string(m.ID) == fmt.Sprint(id) {
			return m
		}
	}
}

// call sends a request, waits for its response and decodes the result
// into out; an error response fails the test.
func (c *client) call(method string, params, out any) {
	c.t.Helper()
	m := c.await(c.send(method, params))
	if m.Error != nil {
		c.t.Fatalf("%s: %v", method, m.Error)
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			c.t.Fatalf("%s: decode %s: %v", method, m.Result, err)
		}
	}
}

// notify sends a notification.
func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.w.Notify(method, params); err != nil {
		c.t.Fatal(err)
	}
}

// open opens a document at version 1.
func (c *client) open(uri, text string) {
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "eligo-rules", "version": 1, "text": text}})
}

// diagnostics reads until a publication for uri at version passing keep
// (any when nil) and returns it.
func (c *client) diagnostics(uri string, version int32, keep func(lsp.PublishDiagnosticsParams) bool) lsp.PublishDiagnosticsParams {
	c.t.Helper()
	for {
		m := c.next()
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p lsp.PublishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			c.t.Fatal(err)
		}
		if p.URI == uri && p.Version == version && (keep == nil || keep(p)) {
			return p
		}
	}
}

// shutdown asks the server to stop its work, reading everything it sends
// before the answer, then tells it to exit.
func (c *client) shutdown() {
	c.t.Helper()
	c.call("shutdown", nil, nil)
	c.notify("exit", nil)
	if err := <-c.done; err != nil {
		c.t.Errorf("Serve: %v", err)
	}
	c.done <- nil // for the cleanup
}

// at is the position of the n-th (from 0) occurrence of s in text, plus
// off characters (ASCII text).
func at(t *testing.T, text, s string, n, off int) lsp.Position {
	t.Helper()
	from := 0
	for i := 0; ; i++ {
		k := strings.Index(text[from:], s)
		if k < 0 {
			t.Fatalf("%q has no occurrence %d of %q", text, n, s)
		}
		if i == n {
			abs := from + k + off
			line := strings.Count(text[:abs], "\n")
			return lsp.Position{Line: line, Character: abs - strings.LastIndex(text[:abs], "\n") - 1}
		}
		from += k + 1
	}
}

// rng is the range of the n-th occurrence of s in text.
func rng(t *testing.T, text, s string, n int) lsp.Range {
	return lsp.Range{Start: at(t, text, s, n, 0), End: at(t, text, s, n, len(s))}
}

// applyEdits applies edits (non-overlapping, in text order) to text,
// their characters counted in UTF-16 code units.
func applyEdits(t *testing.T, text string, edits []lsp.TextEdit) string {
	t.Helper()
	offset := func(p lsp.Position) int {
		lines := strings.SplitAfter(text, "\n")
		o := 0
		for i := 0; i < p.Line && i < len(lines); i++ {
			o += len(lines[i])
		}
		if p.Line >= len(lines) {
			return len(text)
		}
		units := 0
		for i, r := range lines[p.Line] {
			if units >= p.Character {
				return o + i
			}
			units += len(utf16.Encode([]rune{r}))
		}
		return o + len(lines[p.Line])
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		text = text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
	}
	return text
}
