// Package jsonrpc is the framing of the Language Server Protocol's base
// protocol: JSON-RPC 2.0 messages, each preceded by a Content-Length
// header, over a byte stream (a language server's standard input and
// output). It knows nothing of the language server's methods.
package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// MaxMessage bounds one message's body, 64 MiB: a document far larger
// than any ruleset (whose text the engine bounds much lower), so that a
// corrupt header cannot make the reader allocate without limit.
const MaxMessage = 64 << 20

// maxHeaderLine bounds one header line; real ones are a few dozen bytes.
const maxHeaderLine = 4096

// Error codes of JSON-RPC and of the Language Server Protocol.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
	CodeRequestFailed    = -32803
)

// Message is one JSON-RPC message: a request (ID and Method), a
// notification (Method, no ID) or a response (ID, and Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m expects a response.
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// IsNotification reports whether m is a method call without a response.
func (m *Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// ErrFraming marks a stream whose headers are malformed: the reader cannot
// find the next message, so the connection is over.
var ErrFraming = errors.New("jsonrpc: malformed header")

// Reader reads framed messages from a stream.
type Reader struct {
	r *bufio.Reader
}

// NewReader reads messages from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReader(r)} }

// ReadBody reads the next message's body, the bytes its Content-Length
// header counts. It returns io.EOF at a clean end of stream, an error
// wrapping ErrFraming when the headers cannot be read, and
// io.ErrUnexpectedEOF when the stream ends inside a message.
func (r *Reader) ReadBody() ([]byte, error) {
	length, started := -1, false
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && started {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if line == "" {
			if !started {
				continue // tolerate blank lines between messages
			}
			break
		}
		started = true
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: %q is not a header", ErrFraming, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: Content-Length %q is not a length", ErrFraming, strings.TrimSpace(value))
			}
			if n > MaxMessage {
				return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", ErrFraming, n, MaxMessage)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", ErrFraming)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("jsonrpc: read body: %w", err)
	}
	return body, nil
}

// readLine reads one header line without its CRLF (a bare LF is
// accepted too), bounded by maxHeaderLine.
func (r *Reader) readLine() (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := r.r.ReadLine()
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > maxHeaderLine {
			return "", fmt.Errorf("%w: a header line is over %d bytes", ErrFraming, maxHeaderLine)
		}
		if !isPrefix {
			return string(bytes.TrimRight(b, "\r")), nil
		}
	}
}

// Read reads the next message. A body that is not a JSON-RPC message is
// an *Error with CodeParseError or CodeInvalidRequest; the stream is still
// in step, so the caller may answer it and read on.
func (r *Reader) Read() (*Message, error) {
	body, err := r.ReadBody()
	if err != nil {
		return nil, err
	}
	return Decode(body)
}

// Decode parses one message body.
func Decode(body []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, &Error{Code: CodeParseError, Message: "the message is not JSON: " + err.Error()}
	}
	if m.JSONRPC != "2.0" {
		return nil, &Error{Code: CodeInvalidRequest, Message: `the message lacks "jsonrpc": "2.0"`}
	}
	if m.Method == "" && len(m.ID) == 0 {
		return nil, &Error{Code: CodeInvalidRequest, Message: "the message has neither a method nor an id"}
	}
	return &m, nil
}

// Writer writes framed messages to a stream; it is safe for concurrent
// use, each message written whole.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter writes messages to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write frames and writes m.
func (w *Writer) Write(m *Message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("jsonrpc: encode %s: %w", m.Method, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := fmt.Fprintf(w.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return fmt.Errorf("jsonrpc: write: %w", err)
	}
	return nil
}

// Notify writes a notification of method with params.
func (w *Writer) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encode %s: %w", method, err)
	}
	return w.Write(&Message{Method: method, Params: raw})
}

// Call writes a request of method with params and id.
func (w *Writer) Call(id int64, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encode %s: %w", method, err)
	}
	return w.Write(&Message{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: raw})
}

// Reply writes the response to the request id: result, or rerr when it
// is not nil.
func (w *Writer) Reply(id json.RawMessage, result any, rerr *Error) error {
	m := &Message{ID: id, Error: rerr}
	if rerr == nil {
		raw, err := json.Marshal(result)
		if err != nil {
			return fmt.Errorf("jsonrpc: encode result: %w", err)
		}
		m.Result = raw
	}
	return w.Write(m)
}
