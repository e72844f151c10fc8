package api

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/auth"
)

func TestOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	open := f.server.OpenSurface()
	if want := []Endpoint{{http.MethodPost, "/test/open"}, {http.MethodGet, "/test/open"}}; !reflect.DeepEqual(open, want) {
		t.Fatalf("open surface %v, want the registered open routes %v", open, want)
	}
	for path, version := range map[string]string{"/openapi.json": "3.1.0", "/openapi-3.0.json": "3.0.3"} {
		r := f.do(t, http.MethodGet, path, nil, nil)
		doc, _ := r.Body.(map[string]any)
		if r.Status != 200 || doc["openapi"] != version {
			t.Fatalf("%s: got %d openapi=%v", path, r.Status, doc["openapi"])
		}
		desc := doc["info"].(map[string]any)["description"].(string)
		for _, e := range open {
			if !strings.Contains(desc, "| "+e.Method+" | "+e.Path+" |") {
				t.Errorf("%s: description lacks open endpoint %s %s", path, e.Method, e.Path)
			}
		}
		op := doc["paths"].(map[string]any)["/test/keyed"].(map[string]any)["post"].(map[string]any)
		if op["operationId"] != "test-keyed" || op["summary"] == "" || !strings.Contains(op["description"].(string), "rulesets:write") ||
			op["x-eligo-metering-class"] != "rulesets" || op["x-eligo-open-surface"] != false {
			t.Errorf("%s: keyed operation documented as %v", path, op)
		}
	}
}

func TestRegisterRejectsContradictoryDeclarations(t *testing.T) {
	t.Parallel()
	s := New(Config{}, nil, testParts(Config{}, nil))
	base := Route{OperationID: "x", Summary: "x", Description: "x", Class: ClassAdmin}
	cases := map[string]Route{
		"anonymous price on a keyed route": func() Route {
			r := base
			r.Method, r.Path, r.Access, r.Scopes = "POST", "/p", Keyed, []auth.Scope{auth.ScopeDecide}
			r.Price = func([]byte) int64 { return 2 }
			return r
		}(),
		"refusal without a reason code": func() Route {
			r := base
			r.Method, r.Path, r.Access = "GET", "/r", Open
			r.Refusals = []Refusal{{Status: http.StatusConflict, Meaning: "taken"}}
			return r
		}(),
		"keyed route without scopes": func() Route { r := base; r.Method, r.Path, r.Access = "GET", "/k", Keyed; return r }(),
		"no metering class": func() Route {
			r := base
			r.Method, r.Path, r.Access, r.Scopes, r.Class = "GET", "/c", Keyed, []auth.Scope{auth.ScopeDecide}, ""
			return r
		}(),
	}
	for name, r := range cases {
		if err := s.addRoute(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
