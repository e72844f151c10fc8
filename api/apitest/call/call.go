// Package call sends one request to a test server and decodes its JSON
// answer. It imports nothing of the project, so that the HTTP core's own
// tests, which cannot import apitest (it imports the core), share it with
// every resource's tests.
package call

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// Response is one answer: status, headers, the body decoded (nil when
// empty) and as sent.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Header holds the response headers.
	Header http.Header
	// Body is the JSON body decoded into Go values; nil when empty.
	Body any
	// Raw is the body as sent.
	Raw string
}

// Field is the member name of the body, which must be an object.
func (r Response) Field(t testing.TB, name string) any {
	t.Helper()
	m, ok := r.Body.(map[string]any)
	if !ok {
		t.Fatalf("body is not an object: %s", r.Raw)
	}
	return m[name]
}

// Do sends one request to url; body, when not nil, is sent as JSON. The
// answer must be JSON (or empty): Body holds it decoded.
func Do(t testing.TB, method, url string, headers map[string]string, body io.Reader) Response {
	t.Helper()
	r := Send(t, method, url, headers, body)
	if len(r.Raw) > 0 {
		if err := json.Unmarshal([]byte(r.Raw), &r.Body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %q", method, url, r.Raw)
		}
	}
	return r
}

// Send sends one request to url and reads the whole answer into Raw,
// whatever its media type, leaving Body nil; body, when not nil, is sent
// as JSON.
func Send(t testing.TB, method, url string, headers map[string]string, body io.Reader) Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", method, url, err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
}

// JSONValue decodes s, for comparing whole bodies.
func JSONValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad expected JSON %s: %v", s, err)
	}
	return v
}
