//go:build nodetools

package routes

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/openapi"
	"github.com/eligo/eligo/api/wiring"
)

// TestReferencePageRendersOffline opens /api/v1/public/docs in headless
// chromium (tools/openapi/reference-check.mjs) and finds every operation
// of the document in Redoc's menu, with no request leaving the server and
// no error in the page. Built with -tags nodetools: it needs Node.js, the
// locked packages of tools/openapi and chromium, which tools/openapi/
// check.sh (make test) provides.
func TestReferencePageRendersOffline(t *testing.T) {
	s, err := New(Config{Config: wiring.Config{API: api.Config{Logger: slog.New(slog.DiscardHandler)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	cmd := exec.Command("node", "../../tools/openapi/reference-check.mjs", srv.URL+openapi.ReferencePath)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("reference-check: %v\n%s\n%s", err, out, stderr)
	}
	var found struct {
		Title      string   `json:"title"`
		Operations []string `json:"operations"`
		Offsite    []string `json:"offsite"`
		Problems   []string `json:"problems"`
	}
	if err := json.Unmarshal(out, &found); err != nil {
		t.Fatalf("reference-check printed %s: %v", out, err)
	}
	t.Logf("%q: %d operations listed", found.Title, len(found.Operations))
	var want []string
	for id := range operations(s.OpenAPI()) {
		want = append(want, id)
	}
	slices.Sort(want)
	slices.Sort(found.Operations)
	if !slices.Equal(found.Operations, want) {
		t.Errorf("the page lists operations %v, the document has %v", found.Operations, want)
	}
	if len(found.Offsite) > 0 || len(found.Problems) > 0 {
		t.Errorf("requests to other hosts %v, page errors %v", found.Offsite, found.Problems)
	}
	if !strings.Contains(found.Title, "Eligo") {
		t.Errorf("page title %q", found.Title)
	}
}
