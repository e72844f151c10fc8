package openapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/yaml"
	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/engine"
)

// Versions are the OpenAPI versions a document can be written in.
var Versions = []string{"3.1", "3.0"}

// Documents builds and serves the published documents of one server. Build
// it once every resource is registered: the documents are built on first
// use and kept, since routes do not change afterwards and a build costs a
// few milliseconds.
type Documents struct {
	server *api.Server
	once   sync.Once
	byVer  map[string][]byte
	err    error
}

// New is the documents of s. It documents the error responses of every
// operation registered so far from its Route (documentErrors; doing it
// again changes nothing), so call it once every resource is registered.
func New(s *api.Server) *Documents {
	documentErrors(s)
	return &Documents{server: s}
}

// Mount serves the published documents of s, JSON and YAML, and the
// reference page that renders them, under api.RootPath.
func Mount(s *api.Server) *Documents {
	d := New(s)
	for _, p := range []struct{ path, version, contentType string }{
		{"/openapi.json", "3.1", "application/openapi+json"},
		{"/openapi-3.0.json", "3.0", "application/openapi+json"},
		{"/openapi.yaml", "3.1", "application/openapi+yaml"},
		{"/openapi-3.0.yaml", "3.0", "application/openapi+yaml"},
	} {
		s.Published("GET "+api.RootPath+p.path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, err := d.Get(p.version)
			if err == nil && strings.HasSuffix(p.path, ".yaml") {
				var buf bytes.Buffer
				err = yaml.Convert(&buf, bytes.NewReader(b))
				b = buf.Bytes()
			}
			if err != nil {
				api.Log(r.Context()).ErrorContext(r.Context(), "openapi document", "error", err)
				api.WriteError(w, api.Internal())
				return
			}
			w.Header().Set("Content-Type", p.contentType)
			_, _ = w.Write(b)
		}))
	}
	serveReference(s)
	return d
}

// Get returns the published document in version "3.1" or "3.0", as
// indented JSON ending in a newline.
func (d *Documents) Get(version string) ([]byte, error) {
	d.once.Do(func() {
		d.byVer = map[string][]byte{}
		for _, v := range Versions {
			b, err := build(d.server, v)
			if err != nil {
				d.err = err
				return
			}
			d.byVer[v] = b
		}
	})
	if d.err != nil {
		return nil, d.err
	}
	b, ok := d.byVer[version]
	if !ok {
		return nil, fmt.Errorf("openapi version %q: want one of %s", version, strings.Join(Versions, ", "))
	}
	return b, nil
}

// obj is a JSON object of the document.
type obj = map[string]any

// build renders huma's document for s and reshapes it (see doc.go).
func build(s *api.Server, version string) ([]byte, error) {
	raw, err := json.Marshal(s.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("marshal openapi: %w", err)
	}
	var doc obj
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("reread openapi: %w", err)
	}
	doc["tags"] = tags()
	doc["info"].(obj)["description"] = description(s)
	if doc["paths"] == nil {
		// A server with no operations yet (a test's) has none.
		doc["paths"] = obj{}
	}
	// The passes left, each because huma's schema cannot carry the fact
	// (huma validates requests with it, or has no tag for it) or it is
	// not a schema's: every fact they read is on the Go types or the
	// Route declarations.
	registry := s.OpenAPI().Components.Schemas
	schemas := doc["components"].(obj)["schemas"].(obj)
	// huma drops null from omitempty pointers only, and refuses nullable
	// on a struct member.
	if err := markNeverNull(registry, schemas); err != nil {
		return nil, err
	}
	// engine.Outcome writes itself as text, but huma documents its kind
	// (an integer), and the engine does not know huma.
	markTextValues(registry, schemas)
	// huma validates null only beside a type: the registry keeps nullable
	// copies of components, which the document refers to instead.
	refNullableCopies(schemas)
	// huma writes a value set inline on each member; generators want one
	// named type per set.
	if err := nameEnums(registry, schemas); err != nil {
		return nil, err
	}
	// Facts for the published document alone (openapi tags, x-go-name).
	shapeMembers(registry, schemas)
	// Headers are the middleware's, declared by Route, not by the types.
	documentHeaders(doc, s.Routes())
	// huma declares a []byte body base64 text but writes the bytes.
	rawResponses(doc)
	// Examples are recorded calls (examples.json), not schema facts.
	if err := addExamples(doc); err != nil {
		return nil, err
	}
	if version == "3.0" {
		// huma's OpenAPI.Downgrade works on huma's document, not this one,
		// and gives other bytes (see downgrade).
		downgrade(doc)
		// 3.0 cannot say a reference is null; examples follow suit.
		optionalNullRefs30(doc["components"].(obj)["schemas"].(obj))
		if err := fitResponseExamples30(doc); err != nil {
			return nil, err
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal openapi %s: %w", version, err)
	}
	return append(out, '\n'), nil
}

// markNeverNull removes null from the types of the array members the Go
// types say are never null where huma's tags cannot, in one pass since
// huma drops null only from omitempty pointers and reads nullable for the
// member alone:
//
//   - a slice with omitempty: encoding/json leaves an empty or nil slice
//     out, so it is never null;
//   - a slice tagged openapi:"nonnull": the server always sends an array,
//     but huma's validator must go on accepting a caller's null, so the
//     fact cannot be huma's nullable tag;
//   - the values of a map of slices tagged nullable:"false": huma reads
//     the tag for the map alone.
//
// It then refuses a slice member still nullable without a nullable tag of
// its own, so that whoever adds one says whether the server can send null
// (nullable:"true") or always builds the slice (nullable:"false").
func markNeverNull(registry huma.Registry, schemas obj) error {
	var undeclared []string
	eachGoMember(registry, schemas, func(component string, props obj, member string, f reflect.StructField, tag string) {
		p, ok := props[member].(obj)
		if !ok {
			return
		}
		switch kind := f.Type.Kind(); {
		case kind == reflect.Slice && (strings.Contains(tag, "omitempty") || published(f, "nonnull")):
			p, _ = nonNull(p)
			props[member] = p
		case kind == reflect.Map && f.Type.Elem().Kind() == reflect.Slice && f.Tag.Get("nullable") == "false":
			if values, ok := p["additionalProperties"].(obj); ok {
				p["additionalProperties"], _ = nonNull(values)
			}
		}
		if _, nullable := nonNull(p); nullable && f.Type.Kind() == reflect.Slice {
			if _, declared := f.Tag.Lookup("nullable"); !declared {
				undeclared = append(undeclared, component+"."+member)
			}
		}
	})
	markNullPointers(registry, schemas)
	if len(undeclared) > 0 {
		return fmt.Errorf(`openapi: the array members %s may be null: tag each nullable:"false" where it is never null (the server always builds it), or nullable:"true" where null is sent or accepted`,
			strings.Join(undeclared, ", "))
	}
	return nil
}

// markNullPointers makes nullable every member whose Go type is a pointer
// to a struct without omitempty: encoding/json writes a nil one as null
// (a project's draft before the first, a rulebook's release), but huma
// declares only scalar pointers nullable.
func markNullPointers(registry huma.Registry, schemas obj) {
	eachGoMember(registry, schemas, func(_ string, props obj, member string, f reflect.StructField, tag string) {
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct || strings.Contains(tag, "omit") {
			return
		}
		if p, ok := props[member].(obj); ok {
			if ref, ok := p["$ref"].(string); ok {
				props[member] = refTo(strings.TrimPrefix(ref, schemaPrefix), p["description"], true)
			}
		}
	})
}

// eachGoMember calls visit for every JSON member of every schema that huma
// made from a Go struct, in name order, with the component's name, its
// properties, the member's name, its struct field and its json tag. The members of an
// embedded struct without a json name are the outer schema's, as
// encoding/json writes them (a cancel's answer embeds the status).
func eachGoMember(registry huma.Registry, schemas obj, visit func(component string, props obj, member string, f reflect.StructField, tag string)) {
	var fields func(component string, t reflect.Type, props obj)
	fields = func(component string, t reflect.Type, props obj) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			member, _, _ := strings.Cut(tag, ",")
			embedded := f.Type
			if embedded.Kind() == reflect.Pointer {
				embedded = embedded.Elem()
			}
			switch {
			case tag == "-":
			case member != "":
				visit(component, props, member, f, tag)
			case f.Anonymous && embedded.Kind() == reflect.Struct:
				fields(component, embedded, props)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		t := registry.TypeFromRef(schemaPrefix + name)
		props, _ := schemas[name].(obj)["properties"].(obj)
		if t == nil || t.Kind() != reflect.Struct || props == nil {
			continue
		}
		fields(name, t, props)
	}
}

// textValues are the Go types written as text (encoding.TextMarshaler)
// whose kind huma reads instead, with every text they write: an outcome
// is an integer in Go and one of three strings on the wire.
var textValues = map[reflect.Type][]string{
	reflect.TypeFor[engine.Outcome](): {engine.Eligible.String(), engine.NotEligible.String(), engine.Undetermined.String()},
}

// markTextValues documents the members of the textValues types as the
// strings they are written as (named by nameEnums), and panics on a
// member of another non-string type written as text, so that a new one
// is added to the table rather than documented as a number.
func markTextValues(registry huma.Registry, schemas obj) {
	eachGoMember(registry, schemas, func(_ string, props obj, member string, f reflect.StructField, _ string) {
		t := f.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.String || t.Kind() == reflect.Struct || !t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			return
		}
		values, ok := textValues[t]
		if !ok {
			panic("openapi: " + member + " is written as text by " + t.String() + ": add its values to textValues")
		}
		p, ok := props[member].(obj)
		if !ok {
			return
		}
		enum := make([]any, len(values))
		for i, v := range values {
			enum[i] = v
		}
		shaped := obj{"type": "string", "enum": enum}
		if d, ok := p["description"]; ok {
			shaped["description"] = d
		}
		props[member] = shaped
	})
}

// shapeMembers documents what the Go types say of their members for the
// published document alone, in one pass since huma's own tags would change
// what it validates or cannot say it:
//
//   - a member tagged openapi:"stringmap" is read as any JSON (an invalid
//     caller_ref is dropped, never refused) but documented as the flat
//     string map it must be;
//   - a member whose wire name begins with a digit (a usage window, 7d)
//     carries its Go field's name as x-go-name, an identifier generators
//     can use.
func shapeMembers(registry huma.Registry, schemas obj) {
	eachGoMember(registry, schemas, func(_ string, props obj, member string, f reflect.StructField, _ string) {
		p, ok := props[member].(obj)
		if !ok {
			return
		}
		if published(f, "stringmap") {
			p["type"] = "object"
			p["additionalProperties"] = obj{"type": "string"}
		}
		if '0' <= member[0] && member[0] <= '9' {
			p["x-go-name"] = f.Name
		}
	})
}

// published says whether f's openapi tag, a comma-separated list of what
// the published document alone says of the member, names fact.
func published(f reflect.StructField, fact string) bool {
	return slices.Contains(strings.Split(f.Tag.Get("openapi"), ","), fact)
}

// Response headers, declared once in components.headers.
var headerComponents = obj{
	"RequestId": obj{"description": "The request's id: one the server draws, or the X-Request-Id a reverse proxy the deployment trusts forwarded (a caller's own is never used). Quote it when reporting a problem.",
		"required": true, "schema": obj{"type": "string"}},
	"RateLimitClass":     obj{"description": "The operation's metering class.", "schema": obj{"type": "string"}},
	"RateLimitLimit":     obj{"description": "The class's rolling 24-hour budget on the caller's tier (anonymous: in cost units).", "schema": obj{"type": "integer"}},
	"RateLimitRemaining": obj{"description": "What is left of the budget after this request.", "schema": obj{"type": "integer"}},
	"RateLimitReset":     obj{"description": "Epoch seconds of the next hourly boundary, when the oldest bucket leaves the window.", "schema": obj{"type": "integer"}},
}

// documentHeaders declares X-Request-Id on every response and the
// X-RateLimit-* headers on every response of a metered operation that the
// meter has seen: success and the errors answered after it (not 401, 403
// and 413, answered before it, nor 503, answered when it could not count).
func documentHeaders(doc obj, routes []api.Route) {
	components := doc["components"].(obj)
	components["headers"] = cloneJSON(headerComponents)
	byID := map[string]api.Route{}
	for _, r := range routes {
		byID[r.OperationID] = r
	}
	for _, item := range doc["paths"].(obj) {
		for _, op := range item.(obj) {
			op := op.(obj)
			route := byID[op["operationId"].(string)]
			metered := route.Class.Known()
			for status, resp := range op["responses"].(obj) {
				resp := resp.(obj)
				headers, _ := resp["headers"].(obj)
				if headers == nil {
					headers = obj{}
					resp["headers"] = headers
				}
				headers["X-Request-Id"] = obj{"$ref": "#/components/headers/RequestId"}
				if metered && !slices.Contains([]string{"401", "403", "413", "503"}, status) {
					for _, h := range []string{"Class", "Limit", "Remaining", "Reset"} {
						headers["X-RateLimit-"+h] = obj{"$ref": "#/components/headers/RateLimit" + h}
					}
				}
			}
		}
	}
}

// rawResponses documents the answers whose Go body is []byte as what
// they are: huma declares such a body as base64 text in JSON, but writes
// the bytes as they are, under the Content-Type the handler sets (a
// source's bytes as uploaded, of its own media type).
func rawResponses(doc obj) {
	for _, item := range doc["paths"].(obj) {
		for _, op := range item.(obj) {
			for _, resp := range op.(obj)["responses"].(obj) {
				resp := resp.(obj)
				content, _ := resp["content"].(obj)
				mt, _ := content["application/json"].(obj)
				schema, _ := mt["schema"].(obj)
				if len(content) != 1 || schema["type"] != "string" || schema["contentEncoding"] != "base64" {
					continue
				}
				resp["content"] = obj{"*/*": obj{"schema": obj{"type": "string", "format": "binary",
					"description": "The bytes as stored, of the media type Content-Type names."}}}
			}
		}
	}
}

// downgrade rewrites a 3.1 document as 3.0.3: the licence's identifier
// becomes its url, type lists with null become
// nullable, a nullable reference is allOf plus nullable, nothing sits
// beside a $ref (3.0 ignores it, and generators copy a member's text onto
// the type it references), examples lists become example, and
// JSON Schema 2020 keywords 3.0 lacks are dropped. huma's
// OpenAPI.Downgrade (v2.37) does only the type lists, exclusive bounds,
// examples, base64 and octet-stream: it would leave the nullable
// references as oneOf with null, the text beside each $ref, the licence
// identifier, contentMediaType and dependentRequired, which 3.0 tools
// misread; and it takes huma's document, not the reshaped one.
func downgrade(doc obj) {
	doc["openapi"] = "3.0.3"
	// 3.0 has no license identifier: its licence is named by url.
	if license, ok := doc["info"].(obj)["license"].(obj); ok {
		if id, ok := license["identifier"].(string); ok {
			delete(license, "identifier")
			license["url"] = licenseURLs[id]
		}
	}
	schemas := doc["components"].(obj)["schemas"].(obj)
	walkJSON(doc, func(m obj) {
		if types, ok := m["type"].([]any); ok {
			rest := slices.DeleteFunc(slices.Clone(types), func(t any) bool { return t == "null" })
			if len(rest) < len(types) {
				m["nullable"] = true
			}
			if len(rest) == 1 {
				m["type"] = rest[0]
			} else {
				delete(m, "type")
			}
		}
		if one, ok := m["oneOf"].([]any); ok && len(one) == 2 {
			if null, ok := one[1].(obj); ok && null["type"] == "null" && len(null) == 1 {
				delete(m, "oneOf")
				m["allOf"] = []any{one[0]}
				m["nullable"] = true
				// 3.0 reads nullable only beside a type: the referenced
				// schema's.
				if ref, ok := one[0].(obj)["$ref"].(string); ok {
					if t, ok := schemas[strings.TrimPrefix(ref, schemaPrefix)].(obj)["type"]; ok {
						m["type"] = t
					}
				}
			}
		}
		if ex, ok := m["examples"].([]any); ok && m["$ref"] == nil {
			if len(ex) > 0 {
				m["example"] = ex[0]
			}
			delete(m, "examples")
		}
		if v, ok := m["exclusiveMinimum"].(float64); ok {
			m["minimum"], m["exclusiveMinimum"] = v, true
		}
		if v, ok := m["exclusiveMaximum"].(float64); ok {
			m["maximum"], m["exclusiveMaximum"] = v, true
		}
		if m["contentEncoding"] == "base64" {
			m["format"] = "base64"
		}
		for _, k := range []string{"contentEncoding", "contentMediaType", "dependentRequired"} {
			delete(m, k)
		}
		if octet, ok := m["application/octet-stream"].(obj); ok && len(octet) == 0 {
			m["application/octet-stream"] = obj{"schema": obj{"type": "string", "format": "binary"}}
		}
		if ref, ok := m["$ref"]; ok && len(m) > 1 {
			// A member's own description stays with the member: the
			// reference moves into an allOf of one.
			for k := range m {
				if k != "description" {
					delete(m, k)
				}
			}
			if _, described := m["description"]; described {
				m["allOf"] = []any{obj{"$ref": ref}}
			} else {
				m["$ref"] = ref
			}
		}
	})
}

// licenseURLs are the texts of the SPDX licences info.license may name.
var licenseURLs = map[string]string{"Apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0"}

// tags describe the tags operations are grouped by.
func tags() []any {
	return []any{
		obj{"name": "Evaluation", "description": "Decide: evaluate answers against a published ruleset or rulebook and get the outcome, the next question and an audit envelope for replay."},
		obj{"name": "Rulesets", "description": "Read published rulesets (list, schema, explanation, graph, source), explain why answers miss an outcome, diff two versions, and manage visibility and archiving."},
		obj{"name": "Rulebooks", "description": "Compose published rulesets into rulebooks under one outcome logic, publish immutable releases, promote candidates and read the composed schema, explanation and graph."},
		obj{"name": "Projects", "description": "The invite-only authoring workspace: sources, tests, guidance, model-backed generation with the caller's provider key, review and publish."},
		obj{"name": "Usage", "description": "The calling key's budgets and usage per metering class."},
	}
}
