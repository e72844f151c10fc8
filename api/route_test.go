package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/auth"
)

func TestOperationsDocumented(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	open := f.server.OpenSurface()
	if want := []Endpoint{{http.MethodPost, "/test/open"}, {http.MethodGet, "/test/open"}}; !reflect.DeepEqual(open, want) {
		t.Fatalf("open surface %v, want the registered open routes %v", open, want)
	}
	// huma's document, which package openapi publishes: each operation
	// is documented from its declaration.
	raw, err := json.Marshal(f.server.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	op := doc["paths"].(map[string]any)["/test/keyed"].(map[string]any)["post"].(map[string]any)
	if op["operationId"] != "test-keyed" || op["summary"] == "" || !strings.Contains(op["description"].(string), "rulesets:write") ||
		op["x-eligo-metering-class"] != "rulesets" || op["x-eligo-open-surface"] != false {
		t.Errorf("keyed operation documented as %v", op)
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
