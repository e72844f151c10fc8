package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestPageServedOutsideTheRoot: a page answers at its pattern through the
// server's handler (request id included), with no CORS grant; a pattern
// under the API root is refused at registration.
func TestPageServedOutsideTheRoot(t *testing.T) {
	t.Parallel()
	s := New(Config{Unmetered: true}, nil, testParts(Config{Unmetered: true}, nil))
	s.Page("GET /{$}", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "page")
	}))
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://elsewhere.example")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(body) != "page" {
		t.Errorf("GET / = %d %q", res.StatusCode, body)
	}
	if res.Header.Get("X-Request-Id") == "" || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("GET / headers %v: want a request id and no CORS grant", res.Header)
	}

	defer func() {
		if recover() == nil {
			t.Error("a page under the API root was accepted")
		}
	}()
	s.Page("GET "+RootPath+"/console", http.NotFoundHandler())
}
