package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file puts the recorded examples (examples.json) in the published
// documents, and fits the response examples to the 3.0 form.

//go:embed examples.json
var examplesJSON []byte

// Example is one recorded call of an operation: what was sent and what
// came back. examples.json holds one per operation id, written and checked
// by the routes package's example test against a live server.
type Example struct {
	// Params are the path and query parameters sent, by name.
	Params map[string]string `json:"params,omitempty"`
	// Request is the JSON body sent; absent for operations without one.
	Request json.RawMessage `json:"request,omitempty"`
	// Status is the success status answered.
	Status int `json:"status"`
	// Response is the JSON body answered, a JSON string for an answer that
	// is not JSON (a source's bytes); absent on 204, which has no body.
	Response json.RawMessage `json:"response,omitempty"`
}

// Examples are the recorded calls the document shows, by operation id.
func Examples() (map[string]Example, error) {
	var out map[string]Example
	if err := json.Unmarshal(examplesJSON, &out); err != nil {
		return nil, fmt.Errorf("read examples.json: %w", err)
	}
	return out, nil
}

// addExamples puts each operation's recorded call in the document: the
// request body (or its parameters) and the success response.
func addExamples(doc obj) error {
	examples, err := Examples()
	if err != nil {
		return err
	}
	for _, item := range doc["paths"].(obj) {
		for _, op := range item.(obj) {
			op := op.(obj)
			ex, ok := examples[op["operationId"].(string)]
			if !ok {
				continue
			}
			if params, ok := op["parameters"].([]any); ok {
				for _, p := range params {
					p := p.(obj)
					if v, ok := ex.Params[p["name"].(string)]; ok {
						p["example"] = paramValue(p, v)
					}
				}
			}
			if body, ok := op["requestBody"].(obj); ok && ex.Request != nil {
				if mt, ok := body["content"].(obj)["application/json"].(obj); ok {
					mt["example"] = rawValue(ex.Request)
				}
			}
			if resp, ok := op["responses"].(obj)[strconv.Itoa(ex.Status)].(obj); ok && ex.Response != nil {
				if content, ok := resp["content"].(obj); ok {
					for _, mt := range content {
						mt.(obj)["example"] = rawValue(ex.Response)
					}
				}
			}
		}
	}
	return nil
}

// paramValue is a parameter's example as its schema types it: the
// recorded query text of an integer parameter is a number.
func paramValue(param obj, v string) any {
	schema, _ := param["schema"].(obj)
	switch schema["type"] {
	case "integer", "number":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return v
}

func rawValue(b json.RawMessage) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// optionalNullRefs30 makes optional, in the 3.0 form, every required
// member whose schema is a nullable reference. 3.0 cannot say that a
// reference may be null: nullable applies only beside a type, so a
// nullable reference is written allOf of the reference beside nullable,
// which generators read as a pointer (oapi-codegen: *T) but validators,
// rightly by 3.0.3, read as refusing null (the referenced schema refuses
// it); the anyOf form validators accept becomes a union type in Go. So
// the 3.0 form keeps allOf and says instead that the member may be left
// out: a 3.0 client reads the null the server sends (a project's draft
// before the first generation, a rulebook's release before the first
// publication) as the absent member it was told to expect, and the same
// pointer type holds both. The 3.1 form, which can say "present and
// null", keeps the member required.
func optionalNullRefs30(schemas obj) {
	walkJSON(schemas, func(m obj) {
		props, _ := m["properties"].(obj)
		required := asAnys(m["required"])
		if props == nil || required == nil {
			return
		}
		kept := slices.DeleteFunc(slices.Clone(required), func(name any) bool {
			p, _ := props[name.(string)].(obj)
			return nullRef(p)
		})
		switch {
		case len(kept) == len(required):
		case len(kept) == 0:
			delete(m, "required")
		default:
			m["required"] = kept
		}
	})
}

// fitResponseExamples30 fits every response example of the 3.0 form to
// it: the null members 3.0 cannot express (see optionalNullRefs30) are
// left out, which the 3.0 schema allows. It fails when an example holds
// such a null where it cannot be left out (a map's value, an array's
// item), since the 3.0 document would then show an example its own schema
// refuses.
func fitResponseExamples30(doc obj) error {
	f := fitter{schemas: doc["components"].(obj)["schemas"].(obj)}
	var unfit []string
	for _, item := range doc["paths"].(obj) {
		for _, op := range item.(obj) {
			op := op.(obj)
			for _, resp := range op["responses"].(obj) {
				content, _ := resp.(obj)["content"].(obj)
				for _, mt := range content {
					mt := mt.(obj)
					ex, ok := mt["example"]
					if !ok {
						continue
					}
					fitted, at := f.fit(mt["schema"].(obj), ex, "")
					if at != "" {
						unfit = append(unfit, op["operationId"].(string)+" (at "+at+")")
						continue
					}
					mt["example"] = fitted
				}
			}
		}
	}
	if len(unfit) > 0 {
		slices.Sort(unfit)
		return fmt.Errorf("openapi 3.0: the response examples of [%s] hold a null 3.0 cannot express where it cannot be left out", strings.Join(unfit, ", "))
	}
	return nil
}

// fitter walks an example beside the 3.0 schema it illustrates.
type fitter struct{ schemas obj }

// resolve follows references to the schema itself.
func (f fitter) resolve(s obj) obj {
	for s != nil {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		s, _ = f.schemas[strings.TrimPrefix(ref, schemaPrefix)].(obj)
	}
	return s
}

// nullRef says whether s is the 3.0 form of a nullable reference, which
// validators read as refusing null.
func nullRef(s obj) bool {
	_, all := s["allOf"]
	return all && s["nullable"] == true
}

// fit returns v, at path, with the members 3.0 cannot show as null left
// out, or the path of one of them that is required ("" when v fits).
func (f fitter) fit(s obj, v any, path string) (any, string) {
	s = f.resolve(s)
	if s == nil {
		return v, ""
	}
	if v == nil {
		if nullRef(s) {
			return v, path
		}
		return v, ""
	}
	for _, sub := range asObjs(s["allOf"]) {
		var at string
		if v, at = f.fit(sub, v, path); at != "" {
			return v, at
		}
	}
	if branch := f.branch(s, v); branch != nil {
		return f.fit(branch, v, path)
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(obj)
		required := s["required"]
		out := maps.Clone(x)
		for k, e := range x {
			p, named := props[k].(obj)
			if !named {
				p, _ = s["additionalProperties"].(obj)
			}
			if p == nil {
				continue
			}
			if e == nil && nullRef(f.resolve(p)) {
				if !named || slices.Contains(asAnys(required), any(k)) {
					return v, path + "." + k
				}
				delete(out, k)
				continue
			}
			fitted, at := f.fit(p, e, path+"."+k)
			if at != "" {
				return v, at
			}
			out[k] = fitted
		}
		return out, ""
	case []any:
		items, _ := s["items"].(obj)
		out := make([]any, len(x))
		for i, e := range x {
			var at string
			if out[i], at = f.fit(items, e, path+"["+strconv.Itoa(i)+"]"); at != "" {
				return v, at
			}
		}
		return out, ""
	}
	return v, ""
}

// branch is the oneOf branch v takes: the one its discriminator maps to,
// else the first whose type is v's JSON type; nil without a oneOf.
func (f fitter) branch(s obj, v any) obj {
	branches := asObjs(s["oneOf"])
	if len(branches) == 0 {
		return nil
	}
	if d, ok := s["discriminator"].(obj); ok {
		if m, ok := v.(map[string]any); ok {
			name, _ := m[d["propertyName"].(string)].(string)
			if ref, ok := d["mapping"].(obj)[name].(string); ok {
				return obj{"$ref": ref}
			}
		}
	}
	for _, b := range branches {
		t := f.resolve(b)["type"]
		switch v.(type) {
		case map[string]any:
			if t == "object" {
				return b
			}
		case []any:
			if t == "array" {
				return b
			}
		case string:
			if t == "string" {
				return b
			}
		case float64:
			if t == "number" || t == "integer" {
				return b
			}
		case bool:
			if t == "boolean" {
				return b
			}
		}
	}
	return nil
}

// asObjs is a JSON list of objects; nil when v is not a list.
func asObjs(v any) []obj {
	var out []obj
	for _, e := range asAnys(v) {
		if o, ok := e.(obj); ok {
			out = append(out, o)
		}
	}
	return out
}

// asAnys is v as a JSON list; nil when it is not one.
func asAnys(v any) []any { l, _ := v.([]any); return l }
