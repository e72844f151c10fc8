package openapi

// The published document's names: huma names schemas after Go types (or,
// for an anonymous body, after its operation's input or output type) and
// repeats value sets and objects inline; these give every schema, value
// set and object one name that says what it is.

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// Named is a type whose schema the published document names otherwise
// than its Go name: a handler's unexported wire type (decideResponse is
// Decision) or a domain type whose name needs its context (a review's
// Report is ReviewReport). The method needs no import, so a package below
// the API declares it beside the type. An anonymous body takes no method:
// give it a named type with the published name instead. No name may be an
// operation id followed by Response, JSONBody, JSONRequestBody or Params:
// Go generators make those wrappers themselves.
type Named interface {
	// SchemaName is the published name.
	SchemaName() string
}

// SchemaName is huma's registry namer for the published document: the
// name the type declares (Named), else huma's default (the Go name, or the
// hint for an anonymous type). Set it as api.Config.SchemaNamer, so that
// every schema is registered under the name the document publishes,
// references and discriminator mappings included, and nothing is renamed
// afterwards. A type that embeds a Named one must declare its own name,
// or it would take the embedded one's: SchemaName panics on it.
func SchemaName(t reflect.Type, hint string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name, ok := namedAs(t)
	if !ok {
		return huma.DefaultSchemaNamer(t, hint)
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous {
			if inner, ok := namedAs(f.Type); ok && inner == name {
				panic("openapi: " + t.String() + " takes the schema name " + name + " from the " + f.Type.String() + " it embeds: declare its own SchemaName")
			}
		}
	}
	return name
}

// namedAs is the name t declares (Named), if it is a struct (or a pointer
// to one) that does. A method promoted through an embedded pointer reads
// that pointer, nil here, and is not t's own: it panics, and is reported
// as one the embedded type declares (by the caller's check) or as none.
func namedAs(t reflect.Type) (name string, ok bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || !t.Implements(reflect.TypeFor[Named]()) {
		return "", false
	}
	defer func() {
		if recover() != nil {
			name, ok = "", false
		}
	}()
	return reflect.Zero(t).Interface().(Named).SchemaName(), true
}

const schemaPrefix = "#/components/schemas/"

// walkJSON calls f on every object of v, parents before children, but
// not inside examples (they are data, not document).
func walkJSON(v any, f func(obj)) {
	switch x := v.(type) {
	case obj:
		f(x)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k != "example" && k != "examples" {
				walkJSON(x[k], f)
			}
		}
	case []any:
		for _, e := range x {
			walkJSON(e, f)
		}
	}
}

// refNullableCopies replaces every inline object equal to a component by
// a reference to it (oneOf with null where the copy was nullable). The
// registry keeps such copies where a member may be null (resource.
// NullableCopy): huma validates null only beside a type, not a reference,
// so the published document says it in the form it cannot validate.
func refNullableCopies(schemas obj) {
	// Compare without descriptions, and take additionalProperties false
	// (huma's default for Go structs) as the absence it means for a
	// response.
	shapes := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		if s := schemas[name].(obj); s["type"] == "object" {
			shapes[shapeKey(s)] = name
		}
	}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		replaceInline(schemas[name].(obj), shapes)
	}
}

// replaceInline replaces the inline objects below s equal to a component
// by a reference to it.
func replaceInline(s obj, shapes map[string]string) {
	for _, child := range children(s) {
		c := child.get()
		inner, nullable := nonNull(c)
		if inner["type"] == "object" && inner["$ref"] == nil {
			if name, ok := shapes[shapeKey(inner)]; ok {
				child.set(refTo(name, c["description"], nullable))
				continue
			}
		}
		replaceInline(c, shapes)
	}
}

// shapeKey is s's JSON without descriptions and with additionalProperties
// false dropped: two schemas with the same key describe the same values.
func shapeKey(s obj) string {
	c := cloneJSON(s)
	walkJSON(c, func(m obj) {
		delete(m, "description")
		delete(m, "examples")
		if m["additionalProperties"] == false {
			delete(m, "additionalProperties")
		}
	})
	b, _ := json.Marshal(c)
	return string(b)
}

// child is one subschema position of a schema.
type child struct {
	get func() obj
	set func(obj)
}

// children lists the subschemas directly below s: members, items, map
// values and the members of oneOf/anyOf/allOf.
func children(s obj) []child {
	var out []child
	if props, ok := s["properties"].(obj); ok {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if c, ok := props[k].(obj); ok {
				out = append(out, child{func() obj { return c }, func(n obj) { props[k] = n }})
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if c, ok := s[k].(obj); ok {
			out = append(out, child{func() obj { return c }, func(n obj) { s[k] = n }})
		}
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if list, ok := s[k].([]any); ok {
			for i := range list {
				if c, ok := list[i].(obj); ok {
					out = append(out, child{func() obj { return c }, func(n obj) { list[i] = n }})
				}
			}
		}
	}
	return out
}

// nonNull returns s without null among its types, and whether it had it.
func nonNull(s obj) (obj, bool) {
	types, ok := s["type"].([]any)
	if !ok || !slices.Contains(types, any("null")) {
		return s, false
	}
	out := maps.Clone(s)
	rest := slices.DeleteFunc(slices.Clone(types), func(t any) bool { return t == "null" })
	if len(rest) == 1 {
		out["type"] = rest[0]
	} else {
		out["type"] = rest
	}
	return out, true
}

// refTo is a reference to the named schema, described as the member it
// replaces was, null allowed when the member allowed it.
func refTo(name string, description any, nullable bool) obj {
	ref := obj{"$ref": schemaPrefix + name}
	out := ref
	if nullable {
		out = obj{"oneOf": []any{ref, obj{"type": "null"}}}
	}
	if description != nil {
		out["description"] = description
	}
	return out
}

func cloneJSON(v any) any {
	switch x := v.(type) {
	case obj:
		out := make(obj, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}

// valueSet is the name and description a member's tags give its value
// set: enumName and enumDoc beside its enum tag.
type valueSet struct{ name, doc string }

// declaredValueSets are the value sets the Go types name, by enumKey. One
// member of each set is enough: the set is named wherever it appears.
func declaredValueSets(registry huma.Registry, schemas obj) (map[string]valueSet, error) {
	out := map[string]valueSet{}
	var errs []string
	eachGoMember(registry, schemas, func(component string, props obj, member string, f reflect.StructField, _ string) {
		name := f.Tag.Get("enumName")
		if name == "" {
			return
		}
		p, _ := props[member].(obj)
		inner, _ := nonNull(p)
		values, ok := inner["enum"].([]any)
		if !ok {
			errs = append(errs, component+"."+member+" names a value set but has none")
			return
		}
		set := valueSet{name, f.Tag.Get("enumDoc")}
		key := enumKey(values)
		if had, ok := out[key]; ok && had != set {
			errs = append(errs, component+"."+member+" names the value set "+key+" "+name+", another member "+had.name)
			return
		}
		out[key] = set
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("openapi: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// nameEnums moves every inline value set into a named schema (one per
// set) with x-enum-varnames, and gives the ones already named their
// varnames too. A set takes the name a member declares (enumName), else
// the name of where it first appears (component and member).
func nameEnums(registry huma.Registry, schemas obj) error {
	declared, err := declaredValueSets(registry, schemas)
	if err != nil {
		return err
	}
	byKey := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		s := schemas[name].(obj)
		if values, ok := s["enum"].([]any); ok {
			s["x-enum-varnames"] = enumVarnames(name, values)
			byKey[enumKey(values)] = name
		}
	}
	var visit func(owner string, s obj) error
	visit = func(owner string, s obj) error {
		for _, c := range children(s) {
			sub := c.get()
			inner, nullable := nonNull(sub)
			values, ok := inner["enum"].([]any)
			if !ok {
				if err := visit(owner, sub); err != nil {
					return err
				}
				continue
			}
			key := enumKey(values)
			name, known := byKey[key]
			if !known {
				set := declared[key]
				name = set.name
				if name == "" {
					name = owner + memberName(s, sub)
				}
				if _, taken := schemas[name]; taken {
					return fmt.Errorf("openapi: value set %s: schema name %s taken", key, name)
				}
				named := obj{"type": inner["type"], "enum": values, "x-enum-varnames": enumVarnames(name, values)}
				if set.doc != "" {
					named["description"] = set.doc
				}
				schemas[name] = named
				byKey[key] = name
			}
			c.set(refTo(name, sub["description"], nullable))
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		if err := visit(name, schemas[name].(obj)); err != nil {
			return err
		}
	}
	return nil
}

// memberName is the Go-style name of the member of parent whose schema is
// sub ("Items" for an array's items).
func memberName(parent, sub obj) string {
	if props, ok := parent["properties"].(obj); ok {
		for k, v := range props {
			if reflect.ValueOf(v).Pointer() == reflect.ValueOf(sub).Pointer() {
				return pascal(k)
			}
		}
	}
	return "Item"
}

// enumKey identifies a value set: its values, sorted, comma separated.
func enumKey(values []any) string {
	keys := make([]string, len(values))
	for i, v := range values {
		keys[i] = fmt.Sprint(v)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// enumVarnames names each value's Go constant: the type's name then the
// value in Pascal case (OutcomeNotEligible, SourceReferenceSchemaVersion2).
func enumVarnames(typ string, values []any) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = typ + pascal(fmt.Sprint(v))
	}
	return out
}

// pascal turns a wire name (snake_case, dotted, with slashes) into a Go
// identifier's words: not_eligible is NotEligible, application/pdf is
// ApplicationPdf.
func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}
