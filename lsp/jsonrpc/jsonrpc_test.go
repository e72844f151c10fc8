package jsonrpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestReadBody reads the framings a client may send and refuses the ones
// that lose the stream's step, each with the error that says why.
func TestReadBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		bodies []string
		err    error
	}{
		{"two messages", "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", []string{"{}", "[1]"}, io.EOF},
		{"other headers and case", "content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", []string{"{}"}, io.EOF},
		{"bare LF", "Content-Length: 2\n\n{}", []string{"{}"}, io.EOF},
		{"no length", "Content-Type: x\r\n\r\n{}", nil, ErrFraming},
		{"negative length", "Content-Length: -1\r\n\r\n", nil, ErrFraming},
		{"huge length", fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxMessage+1), nil, ErrFraming},
		{"not a header", "hello\r\n\r\n", nil, ErrFraming},
		{"short body", "Content-Length: 10\r\n\r\n{}", nil, io.ErrUnexpectedEOF},
		{"end inside headers", "Content-Length: 10\r\n", nil, io.ErrUnexpectedEOF},
		{"long header line", "X: " + strings.Repeat("a", maxHeaderLine) + "\r\n\r\n", nil, ErrFraming},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.stream))
			var got []string
			var err error
			for {
				var b []byte
				if b, err = r.ReadBody(); err != nil {
					break
				}
				got = append(got, string(b))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.bodies) {
				t.Errorf("bodies %q, want %q", got, tc.bodies)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
		})
	}
}

// TestDecode tells requests, notifications and responses apart and
// refuses bodies that are not JSON-RPC with the code that says so.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		body         string
		request      bool
		notification bool
		code         int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, true, false, 0},
		{`{"jsonrpc":"2.0","method":"initialized"}`, false, true, 0},
		{`{"jsonrpc":"2.0","id":"a","result":null}`, false, false, 0},
		{`{"jsonrpc":"2.0"`, false, false, CodeParseError},
		{`{"jsonrpc":"1.0","method":"x"}`, false, false, CodeInvalidRequest},
		{`{"jsonrpc":"2.0"}`, false, false, CodeInvalidRequest},
	} {
		m, err := Decode([]byte(tc.body))
		if tc.code != 0 {
			var rerr *Error
			if !errors.As(err, &rerr) || rerr.Code != tc.code {
				t.Errorf("Decode(%s): error %v, want code %d", tc.body, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("Decode(%s): %v", tc.body, err)
			continue
		}
		if m.IsRequest() != tc.request || m.IsNotification() != tc.notification {
			t.Errorf("Decode(%s): request %v notification %v", tc.body, m.IsRequest(), m.IsNotification())
		}
	}
}

// TestWriteRead round-trips what the writer frames through the reader.
func TestWriteRead(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Call(7, "textDocument/hover", map[string]string{"é": "ü"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Reply([]byte("7"), nil, &Error{Code: CodeRequestFailed, Message: "no"}); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&b)
	m, err := r.Read()
	if err != nil || !m.IsRequest() || m.Method != "textDocument/hover" || string(m.Params) != `{"é":"ü"}` {
		t.Fatalf("read %+v, %v", m, err)
	}
	m, err = r.Read()
	if err != nil || m.Error == nil || m.Error.Code != CodeRequestFailed || string(m.ID) != "7" {
		t.Fatalf("read %+v, %v", m, err)
	}
}

// FuzzReadBody feeds the reader arbitrary streams: it never panics, never
// returns a body longer than the stream or over MaxMessage, and each body
// it returns reads back the same when framed again.
func FuzzReadBody(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 5\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[1,2]Content-Length: 0\r\n\r\n"))
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"))
	f.Add([]byte("\r\n\r\nContent-Length:3\n\nabc"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := NewReader(bytes.NewReader(stream))
		for range 64 {
			body, err := r.ReadBody()
			if err != nil {
				return
			}
			if len(body) > len(stream) || len(body) > MaxMessage {
				t.Fatalf("body of %d bytes from a stream of %d", len(body), len(stream))
			}
			again, err := NewReader(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))).ReadBody()
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("body %q framed again reads %q, %v", body, again, err)
			}
			_, _ = Decode(body) // must not panic
		}
	})
}
