package api

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

// examplesOmitted30 are the operations whose response example the 3.0
// form leaves out, with why. 3.0 cannot say that a reference may be null:
// nullable applies only beside a type, so a nullable reference is written
// allOf of the reference beside nullable, which generators read as a
// pointer (oapi-codegen: *T) but validators, rightly by 3.0.3, read as
// refusing null (the referenced schema refuses it). The anyOf form they
// accept becomes a union type in Go, so the 3.0 schemas keep allOf, and
// fit30 shows each response example without the null members of that
// form where the schema lets them be absent. Where such a member is
// required and null in the recorded answer, no valid 3.0 example exists:
// the operation is listed here and shows its example in 3.1 only (the
// reference page reads 3.1). Building the document fails when this list
// and the examples disagree, so that it stays true.
var examplesOmitted30 = map[string]string{
	"create-project":             "a project is created without a draft: draft is null",
	"create-rulebook":            "a rulebook is created as a draft, before its first release: release is null",
	"generate-project":           "a generation just started has no outcome yet: outcome is null",
	"get-ruleset-graph":          "a ruleset's field nodes carry no overlay (only a rulebook's fields can): overlay is null",
	"get-rulebook-graph":         "the field nodes without an overlay entry have overlay null",
	"get-rulebook-graph-by-slug": "the field nodes without an overlay entry have overlay null",
}

// fitResponseExamples30 fits every response example of the 3.0 form (see
// examplesOmitted30): the null members 3.0 cannot express are left out
// where optional, and the examples that still hold one are removed. It
// fails when those are not exactly the listed operations.
func fitResponseExamples30(doc obj) error {
	f := fitter{schemas: doc["components"].(obj)["schemas"].(obj)}
	var unlisted, stale []string
	for _, item := range doc["paths"].(obj) {
		for _, op := range item.(obj) {
			op := op.(obj)
			id := op["operationId"].(string)
			for _, resp := range op["responses"].(obj) {
				content, _ := resp.(obj)["content"].(obj)
				for _, mt := range content {
					mt := mt.(obj)
					ex, ok := mt["example"]
					if !ok {
						continue
					}
					fitted, at := f.fit(mt["schema"].(obj), ex, "")
					_, listed := examplesOmitted30[id]
					switch {
					case at != "":
						delete(mt, "example")
						if !listed {
							unlisted = append(unlisted, id+" (at "+at+")")
						}
					case listed:
						stale = append(stale, id)
					default:
						mt["example"] = fitted
					}
				}
			}
		}
	}
	if len(unlisted)+len(stale) > 0 {
		slices.Sort(unlisted)
		slices.Sort(stale)
		return fmt.Errorf("openapi 3.0: examplesOmitted30 is out of date: the examples of [%s] hold a required null 3.0 cannot express (list them, with why); those of [%s] fit (unlist them)",
			strings.Join(unlisted, ", "), strings.Join(stale, ", "))
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
