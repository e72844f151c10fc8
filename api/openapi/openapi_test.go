package openapi_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/apitest/call"
	"github.com/eligo/eligo/api/openapi"
	"github.com/eligo/eligo/auth"
)

// TestServedDocuments: the published documents are served in both
// versions and both encodings, with their media types, to a caller with no
// key, unmetered; the reference page is served with its lock-down headers.
// (The committed-document test in api/routes compares the documents
// themselves with the code, byte for byte.)
func TestServedDocuments(t *testing.T) {
	t.Parallel()
	f := apitest.New(t, api.Config{Metering: apitest.GenerousMetering()}, nil)
	for _, c := range []struct{ path, version, contentType string }{
		{"/openapi.json", "3.1.0", "application/openapi+json"},
		{"/openapi-3.0.json", "3.0.3", "application/openapi+json"},
		{"/openapi.yaml", "openapi: 3.1.0", "application/openapi+yaml"},
		{"/openapi-3.0.yaml", "openapi: 3.0.3", "application/openapi+yaml"},
	} {
		r := call.Send(t, http.MethodGet, f.URL+c.path, nil, nil)
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != c.contentType {
			t.Fatalf("%s: %d %s", c.path, r.Status, r.Header.Get("Content-Type"))
		}
		apitest.NoRateHeaders(t, c.path, r.Header)
		if strings.HasSuffix(c.path, ".yaml") {
			if !strings.Contains(r.Raw, c.version) {
				t.Errorf("%s does not say %q", c.path, c.version)
			}
			continue
		}
		doc := call.JSONValue(t, r.Raw).(map[string]any)
		if doc["openapi"] != c.version {
			t.Errorf("%s: openapi %v, want %s", c.path, doc["openapi"], c.version)
		}
		if tags, _ := doc["tags"].([]any); len(tags) == 0 {
			t.Errorf("%s: no tags", c.path)
		}
	}
	page := call.Send(t, http.MethodGet, strings.TrimSuffix(f.URL, api.RootPath)+openapi.ReferencePath, nil, nil)
	if page.Status != http.StatusOK || !strings.Contains(page.Header.Get("Content-Security-Policy"), "default-src 'none'") ||
		page.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("reference page: %d %v", page.Status, page.Header)
	}
	missing := call.Send(t, http.MethodGet, strings.TrimSuffix(f.URL, api.RootPath)+openapi.ReferencePath+"/nothing.js", nil, nil)
	if missing.Status != http.StatusNotFound {
		t.Errorf("an unknown asset: %d", missing.Status)
	}
	// A key is neither needed nor counted.
	key := apitest.TierKey(t, f.Services.Store, auth.TierStarter, auth.ScopeRulesetsRead)
	if r := call.Send(t, http.MethodGet, f.URL+"/openapi.json", map[string]string{"x-api-key": key}, nil); r.Status != http.StatusOK {
		t.Errorf("with a key: %d", r.Status)
	}
}

// TestUnknownVersion: Get names the versions it can write.
func TestUnknownVersion(t *testing.T) {
	t.Parallel()
	f := apitest.New(t, api.Config{Unmetered: true}, nil)
	_, err := openapi.New(f.Server).Get("2.0")
	if err == nil || !strings.Contains(err.Error(), "3.1, 3.0") {
		t.Fatalf("version 2.0: %v", err)
	}
}

// decideResponse stands for a handler's unexported wire type, whose Go
// name does not say what it is.
type decideResponse struct{}

func (decideResponse) SchemaName() string { return "Decision" }

// Types embedding a Named one: by value, with and without a name of their
// own, and by pointer.
type (
	embedsNamed    struct{ decideResponse }
	embedsAndNamed struct{ decideResponse }
	embedsNamedPtr struct{ *decideResponse }
)

func (embedsAndNamed) SchemaName() string { return "DecisionCopy" }

// TestSchemaName: the namer gives the name a type declares, huma's default
// otherwise (the Go name, or the hint of an anonymous type), and refuses
// to let a type take the name of one it embeds.
func TestSchemaName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		t    reflect.Type
		hint string
		want string
	}{
		{reflect.TypeFor[decideResponse](), "", "Decision"},
		{reflect.TypeFor[*decideResponse](), "", "Decision"},
		{reflect.TypeFor[struct{ A int }](), "SomethingElseBody", "SomethingElseBody"},
		{reflect.TypeFor[api.Problem](), "", "Problem"},
		{reflect.TypeFor[*api.Problem](), "", "Problem"},
		{reflect.TypeOf(embedsAndNamed{decideResponse{}}), "", "DecisionCopy"},
		{reflect.TypeFor[embedsNamedPtr](), "", "EmbedsNamedPtr"},
	}
	for _, c := range cases {
		if got := openapi.SchemaName(c.t, c.hint); got != c.want {
			t.Errorf("SchemaName(%v, %q) = %q, want %q", c.t, c.hint, got, c.want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "declare its own SchemaName") {
			t.Errorf("a type taking an embedded type's name: %v", r)
		}
	}()
	openapi.SchemaName(reflect.TypeFor[embedsNamed](), "")
}

// TestDescriptionListsTheOpenSurface: the document's description lists
// every operation of the open surface, and the limits table names each
// operation under its class.
func TestDescriptionListsTheOpenSurface(t *testing.T) {
	t.Parallel()
	type empty struct{}
	handler := func(context.Context, *empty) (*empty, error) { return &empty{}, nil }
	f := apitest.New(t, api.Config{Metering: apitest.GenerousMetering()}, func(s *api.Server, _ apitest.Services) {
		api.Register(s, api.Route{OperationID: "test-open", Method: http.MethodGet, Path: "/test/open",
			Summary: "Open", Description: "An open operation.", Access: api.Open, Class: api.ClassRulesets}, handler)
		api.Register(s, api.Route{OperationID: "test-keyed", Method: http.MethodPost, Path: "/test/keyed",
			Summary: "Keyed", Description: "A keyed operation.", Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsWrite},
			Class: api.ClassRulesets}, handler)
	})
	doc := call.JSONValue(t, call.Send(t, http.MethodGet, f.URL+"/openapi.json", nil, nil).Raw).(map[string]any)
	desc := doc["info"].(map[string]any)["description"].(string)
	if !strings.Contains(desc, "| GET | /test/open |") || strings.Contains(desc, "| POST | /test/keyed |") {
		t.Errorf("open surface table wrong:\n%s", desc)
	}
	if !strings.Contains(desc, "| `rulesets` | yes | POST /test/keyed, GET /test/open |") {
		t.Errorf("limits table lacks the class's operations:\n%s", desc)
	}
}

// untaggedLists is a response with array members: one that does not say
// whether it can be null, and the ways of saying it.
type untaggedLists struct {
	Untagged []string `json:"untagged"`
	Never    []string `json:"never" nullable:"false"`
	Maybe    []string `json:"maybe" nullable:"true"`
	Omitted  []string `json:"omitted,omitempty"`
}

// TestArrayMembersDeclareNull: an array member huma would document as
// nullable without a nullable tag of its own stops the document, naming
// the member, so that a new one cannot be published as null by default.
func TestArrayMembersDeclareNull(t *testing.T) {
	t.Parallel()
	type output struct{ Body untaggedLists }
	f := apitest.New(t, api.Config{Unmetered: true}, func(s *api.Server, _ apitest.Services) {
		api.Register(s, api.Route{OperationID: "test-lists", Method: http.MethodGet, Path: "/test/lists",
			Summary: "Lists", Description: "Arrays.", Access: api.Open, Class: api.ClassUnmetered},
			func(context.Context, *struct{}) (*output, error) { return &output{}, nil })
	})
	_, err := openapi.New(f.Server).Get("3.1")
	if err == nil || !strings.Contains(err.Error(), "members UntaggedLists.untagged may be null") {
		t.Fatalf("document with an undeclared array member: %v", err)
	}
}

// Responses whose members name a value set: once, and twice with two names.
type (
	namedSet struct {
		A string `json:"a" enum:"x,y" enumName:"Pair" enumDoc:"Two letters."`
		B string `json:"b" enum:"y,x"`
	}
	twiceNamedSet struct {
		A string `json:"a" enum:"x,y" enumName:"Pair"`
		B string `json:"b" enum:"y,x" enumName:"Letters"`
	}
)

// TestValueSetNames: a value set takes the name and description one of its
// members declares, wherever else it appears, and two names for one set
// stop the document.
func TestValueSetNames(t *testing.T) {
	t.Parallel()
	type named struct{ Body namedSet }
	type twice struct{ Body twiceNamedSet }
	for _, c := range []struct {
		name     string
		register func(*api.Server, api.Route)
		want     string
	}{
		{"named", func(s *api.Server, r api.Route) {
			api.Register(s, r, func(context.Context, *struct{}) (*named, error) { return &named{}, nil })
		}, `"Pair":{"description":"Two letters.","enum":["x","y"],"type":"string","x-enum-varnames":["PairX","PairY"]}`},
		{"twice", func(s *api.Server, r api.Route) {
			api.Register(s, r, func(context.Context, *struct{}) (*twice, error) { return &twice{}, nil })
		}, "TwiceNamedSet.b names the value set x,y Letters, another member Pair"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := apitest.New(t, api.Config{Unmetered: true}, func(s *api.Server, _ apitest.Services) {
				c.register(s, api.Route{OperationID: "test-sets", Method: http.MethodGet, Path: "/test/sets",
					Summary: "Sets", Description: "Value sets.", Access: api.Open, Class: api.ClassUnmetered})
			})
			doc, err := openapi.New(f.Server).Get("3.1")
			got := string(doc)
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(strings.Join(strings.Fields(got), ""), strings.Join(strings.Fields(c.want), "")) {
				t.Errorf("want %s in:\n%.3000s", c.want, got)
			}
		})
	}
}
