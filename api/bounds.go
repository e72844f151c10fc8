package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"
	"github.com/tidwall/gjson"

	"github.com/eligo/eligo/api/pydantic"
	"github.com/eligo/eligo/api/redact"
)

// This file bounds what a JSON request body may cost before anything is
// built from it (docs/limits.md#json-bodies-before-they-are-decoded).
// Decoding a body into generic values and validating them costs far more
// than its bytes: an empty object `{}` is two bytes and a map, and every
// member it lacks is a validation item echoing it. So every JSON body is
// first walked as a token stream, allocating nothing per value: it may
// hold at most MaxBodyValues values nested at most MaxBodyDepth levels,
// and what its schema already refuses by shape (a list over its maxItems,
// a member the schema does not declare, a required member absent, a
// value of the wrong JSON type) is answered from the walk, when the body
// is over SmallBody, with the first MaxValidationItems items and a count
// of the rest, the body never decoded.

// The limits of a JSON request body's shape, and of a 422's list.
const (
	// MaxBodyValues is the most JSON values (objects, arrays, strings,
	// numbers, literals; a member counts as its value) one body may hold.
	// The largest documented bodies (100 test cases of a few hundred
	// answers each, a rulebook of 1,024 outcome nodes) hold a few tens of
	// thousands; decoding this many into generic values costs some 20 MB.
	MaxBodyValues = 200_000
	// MaxBodyDepth is how deeply a body may nest objects and arrays: the
	// deepest documented body is a rulebook's outcome tree, itself capped
	// at 64 levels (rulebook.MaxOutcomeDepth) two levels below the body.
	MaxBodyDepth = 72
	// MaxValidationItems is the most items a 422 validation list carries;
	// past them, one last item of type too_many_errors counts the rest.
	// A caller fixes the first few and sends again; a list of thousands
	// only costs both sides memory.
	MaxValidationItems = 50
)

// TooManyErrorsType is the type of the last item of a 422 list that was
// cut at MaxValidationItems: its input is the number of items left out.
const TooManyErrorsType = "too_many_errors"

// validationList is the 422 of items (at most MaxValidationItems of them
// are kept) followed, when more were found than are listed, by one
// too_many_errors item counting them: more items left out beyond those
// in items.
func validationList(items []ValidationItem, more int) *Error {
	if len(items) > MaxValidationItems {
		more += len(items) - MaxValidationItems
		items = items[:MaxValidationItems:MaxValidationItems]
	}
	e := ValidationFailed(items...)
	if more > 0 {
		e.Detail = append(e.Detail.([]ValidationItem), ValidationItem{Type: TooManyErrorsType, Loc: []any{"body"},
			Msg: fmt.Sprintf("%d more errors are not listed; a 422 lists the first %d", more, MaxValidationItems), Input: more})
	}
	return e
}

// checkBody reads r's body, within the caps and the read deadline
// (Config.BodyReadTimeout) the gate set, and walks it when its operation's
// schema (pattern's, in bodySchemas) is JSON and the body says it is JSON,
// answering a body whose shape that schema or the limits above refuse
// with its 422. It reports whether the request may go on, its body then
// readable again from the bytes read.
//
// Every body is read here, JSON or not, so that the one read deadline is
// the middleware's: huma's own (Operation.BodyReadTimeout) is off, since
// it would be set after the body is in and then, net/http watching the
// connection for a caller hanging up once the body is read to its end,
// cancel work that rightly runs past it (a solver run within its budget)
// as if the caller had gone. For the same reason the deadline is lifted
// once the body is in.
func (s *Server) checkBody(w http.ResponseWriter, r *http.Request) bool {
	st := stateFrom(r.Context())
	if st == nil || r.Body == nil || r.Body == http.NoBody {
		return true
	}
	raw, err := readBody(r)
	if err != nil {
		WriteError(w, BodyReadFailed(err))
		return false
	}
	r.Body = &dropReader{data: raw}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	schema := s.bodySchemas[st.route]
	if schema == nil || !IsJSONContentType(r.Header.Get("Content-Type")) {
		return true
	}
	// A small body is left to the validator, whose list is complete (it
	// names the errors of value too, an unknown enum or date), unless it
	// passes a limit of the whole body; refusing it costs at most the
	// validator's per-byte cost times SmallBody.
	if e, limit := s.ShapeErrors(raw, schema); e != nil && (limit || len(raw) > SmallBody) {
		suggestMembers(e, st.members)
		WriteError(w, e)
		return false
	}
	return true
}

// readBody reads r's body into one buffer: of ContentLength bytes when it
// is known (the gate has capped it), else grown to the body's end.
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength >= 0 {
		raw := make([]byte, r.ContentLength)
		_, err := io.ReadFull(r.Body, raw)
		return raw, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, bytes.MinRead))
	_, err := buf.ReadFrom(r.Body)
	return buf.Bytes(), err
}

// dropReader reads data once and lets go of it at its end, so that the
// copy the handler's own read makes is the only one left while it runs.
type dropReader struct{ data []byte }

func (d *dropReader) Read(p []byte) (int, error) {
	if len(d.data) == 0 {
		d.data = nil
		return 0, io.EOF
	}
	n := copy(p, d.data)
	d.data = d.data[n:]
	return n, nil
}

func (d *dropReader) Close() error { d.data = nil; return nil }

// ShapeErrors walks raw against schema (a body schema of s's registry)
// without building it, and returns the 422 of what it refuses: more than
// MaxBodyValues values, nesting past MaxBodyDepth, or a shape the schema
// cannot accept (a list over maxItems, an undeclared member where the
// schema declares them all, a required member absent). It returns nil for
// a body it accepts and for one that is not JSON at all, whose refusal is
// the decoder's (json_invalid). limit reports a refusal for passing
// MaxBodyValues or MaxBodyDepth. Its cost is one pass over raw.
func (s *Server) ShapeErrors(raw []byte, schema *huma.Schema) (e *Error, limit bool) {
	w := &shapeWalk{data: raw, registry: s.huma.OpenAPI().Components.Schemas}
	w.space()
	if !w.value(schema) && !w.stopped {
		return nil, false
	}
	w.space()
	if w.pos != len(w.data) && !w.stopped {
		return nil, false
	}
	if len(w.items) == 0 {
		return nil, false
	}
	return validationList(w.items, w.more), w.stopped
}

// shapeWalk is one pass over a JSON text. The path to the current value
// is kept as byte ranges of the text and indices, so a value costs no
// allocation; only the items it records (at most MaxValidationItems)
// allocate.
type shapeWalk struct {
	data     []byte
	pos      int
	registry huma.Registry
	values   int
	path     []pathStep
	items    []ValidationItem
	more     int
	// stopped is set once a limit of the whole body is passed: the walk
	// ends there with that one item.
	stopped bool
}

// pathStep is one step of the path to a value: a member's key (its JSON
// text, quotes excluded) or a list index.
type pathStep struct {
	key   []byte
	index int
}

// record keeps an item at the current path (plus member, when not nil),
// or counts it once MaxValidationItems are kept. input is called only for
// a kept item.
func (w *shapeWalk) record(typ, msg string, member []byte, input func() any) {
	if len(w.items) >= MaxValidationItems {
		w.more++
		return
	}
	loc := make([]any, 0, len(w.path)+2)
	loc = append(loc, "body")
	for _, p := range w.path {
		if p.key != nil {
			loc = append(loc, decodeKey(p.key))
		} else {
			loc = append(loc, p.index)
		}
	}
	if member != nil {
		loc = append(loc, decodeKey(member))
	}
	w.items = append(w.items, ValidationItem{Type: typ, Loc: loc, Msg: msg, Input: input()})
}

// stop records a limit of the whole body and ends the walk.
func (w *shapeWalk) stop(typ, msg string) bool {
	w.items, w.more, w.stopped = nil, 0, true
	w.items = append(w.items, ValidationItem{Type: typ, Loc: []any{"body"}, Msg: msg, Input: nil})
	return false
}

// value walks the value at pos against schema (nil: anything goes),
// reporting false when the text is not JSON or the walk stopped.
func (w *shapeWalk) value(schema *huma.Schema) bool {
	w.values++
	if w.values > MaxBodyValues {
		return w.stop("too_long", fmt.Sprintf("The body holds more than %d JSON values", MaxBodyValues))
	}
	if w.pos >= len(w.data) {
		return false
	}
	schema = w.resolve(schema)
	if schema != nil && !w.typed(schema.Type) {
		// The validator would refuse the value's type and look no
		// further inside it: neither does the walk.
		start := w.pos
		if !w.value(nil) {
			return false
		}
		w.values--
		raw := w.data[start:w.pos]
		typ, msg, _ := pydantic.Message(typeMessages[schema.Type])
		w.record(typ, msg, nil, func() any { return echoRaw(raw) })
		return true
	}
	switch c := w.data[w.pos]; {
	case c == '{':
		return w.object(schema)
	case c == '[':
		return w.array(schema)
	case c == '"':
		_, ok := w.str()
		return ok
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return w.number()
	}
	return false
}

// typeMessages are the validator's messages of a value not of a
// schema's type, by type.
var typeMessages = map[string]string{
	huma.TypeObject: validation.MsgExpectedObject, huma.TypeArray: validation.MsgExpectedArray,
	huma.TypeString: validation.MsgExpectedString, huma.TypeBoolean: validation.MsgExpectedBoolean,
	huma.TypeNumber: validation.MsgExpectedNumber, huma.TypeInteger: validation.MsgExpectedInteger,
}

// typed reports whether the value at pos may be of type (a schema's; ""
// is any), as far as its first byte tells: null is left to the
// validator (a member that is not required may be null whatever its
// type), and a number to it when an integer is wanted.
func (w *shapeWalk) typed(typ string) bool {
	if _, known := typeMessages[typ]; !known {
		return true
	}
	switch c := w.peek(); {
	case c == 'n':
		return true
	case c == '{':
		return typ == huma.TypeObject
	case c == '[':
		return typ == huma.TypeArray
	case c == '"':
		return typ == huma.TypeString
	case c == 't' || c == 'f':
		return typ == huma.TypeBoolean
	default:
		return typ == huma.TypeNumber || typ == huma.TypeInteger
	}
}

// resolve follows schema's references; a schema that combines others
// (oneOf, anyOf, allOf, not) is left to the validator: nil.
func (w *shapeWalk) resolve(schema *huma.Schema) *huma.Schema {
	for schema != nil && schema.Ref != "" {
		schema = w.registry.SchemaFromRef(schema.Ref)
	}
	if schema == nil || len(schema.OneOf) > 0 || len(schema.AnyOf) > 0 || len(schema.AllOf) > 0 || schema.Not != nil {
		return nil
	}
	return schema
}

// enter opens a nesting level, stopping the walk past MaxBodyDepth.
func (w *shapeWalk) enter() bool {
	if len(w.path) >= MaxBodyDepth {
		return w.stop("json_invalid", fmt.Sprintf("JSON nested deeper than %d levels", MaxBodyDepth))
	}
	w.pos++
	w.path = append(w.path, pathStep{})
	return true
}

func (w *shapeWalk) object(schema *huma.Schema) bool {
	start := w.pos
	if !w.enter() {
		return false
	}
	if schema != nil && schema.Type != "" && schema.Type != huma.TypeObject {
		schema = nil
	}
	closed := false
	var required []string
	var seen uint64
	if schema != nil {
		if addl, ok := schema.AdditionalProperties.(bool); ok && !addl {
			closed = true
		}
		if len(schema.Required) <= 64 {
			required = schema.Required
		}
	}
	w.space()
	if w.peek() == '}' {
		w.pos++
	} else {
		for {
			w.space()
			key, ok := w.str()
			if !ok {
				return false
			}
			w.space()
			if w.peek() != ':' {
				return false
			}
			w.pos++
			w.space()
			member, known := w.member(schema, key)
			for i, name := range required {
				if equalKey(key, name) {
					seen |= 1 << i
				}
			}
			valueStart := w.pos
			w.path[len(w.path)-1] = pathStep{key: key}
			if !w.value(member) {
				return false
			}
			if closed && !known {
				raw := w.data[valueStart:w.pos]
				w.path = w.path[:len(w.path)-1]
				w.record("extra_forbidden", "Extra inputs are not permitted", key, func() any { return echoRaw(raw) })
				w.path = append(w.path, pathStep{})
			}
			w.space()
			if w.peek() == ',' {
				w.pos++
				continue
			}
			if w.peek() != '}' {
				return false
			}
			w.pos++
			break
		}
	}
	w.path = w.path[:len(w.path)-1]
	for i, name := range required {
		if seen&(1<<i) != 0 {
			continue
		}
		if p := schema.Properties[name]; p != nil && p.ReadOnly {
			continue
		}
		if len(w.items) >= MaxValidationItems {
			w.more++
			continue
		}
		raw := w.data[start:w.pos]
		w.record("missing", "Field required", []byte(name), func() any { return echoParent(raw, len(w.path) == 0) })
	}
	return true
}

// member is the schema of the member named key (its JSON text) of an
// object of schema, and whether schema declares it, matching names in any
// letter case as the validator does.
func (w *shapeWalk) member(schema *huma.Schema, key []byte) (*huma.Schema, bool) {
	if schema == nil {
		return nil, true
	}
	if p, ok := schema.Properties[string(key)]; ok {
		return p, true
	}
	for name, p := range schema.Properties {
		if equalKey(key, name) {
			return p, true
		}
	}
	if addl, ok := schema.AdditionalProperties.(*huma.Schema); ok {
		return addl, true
	}
	return nil, false
}

func (w *shapeWalk) array(schema *huma.Schema) bool {
	if !w.enter() {
		return false
	}
	var items *huma.Schema
	maxItems := -1
	if schema != nil && (schema.Type == "" || schema.Type == huma.TypeArray) {
		items = schema.Items
		if schema.MaxItems != nil {
			maxItems = *schema.MaxItems
		}
	}
	n := 0
	w.space()
	if w.peek() == ']' {
		w.pos++
	} else {
		for {
			w.space()
			w.path[len(w.path)-1] = pathStep{index: n}
			if !w.value(items) {
				return false
			}
			n++
			w.space()
			if w.peek() == ',' {
				w.pos++
				continue
			}
			if w.peek() != ']' {
				return false
			}
			w.pos++
			break
		}
	}
	w.path = w.path[:len(w.path)-1]
	if maxItems >= 0 && n > maxItems {
		w.record("too_long", fmt.Sprintf("List should have at most %d items", maxItems), nil,
			func() any { return fmt.Sprintf("(an array of %d items)", n) })
	}
	return true
}

func (w *shapeWalk) peek() byte {
	if w.pos < len(w.data) {
		return w.data[w.pos]
	}
	return 0
}

func (w *shapeWalk) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// str reads a string at pos and returns its text between the quotes,
// escapes as sent.
func (w *shapeWalk) str() ([]byte, bool) {
	if w.peek() != '"' {
		return nil, false
	}
	start := w.pos + 1
	for i := start; i < len(w.data); i++ {
		switch c := w.data[i]; {
		case c == '\\':
			i++
		case c == '"':
			w.pos = i + 1
			return w.data[start:i], true
		case c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

func (w *shapeWalk) literal(word string) bool {
	if !bytes.HasPrefix(w.data[w.pos:], []byte(word)) {
		return false
	}
	w.pos += len(word)
	return true
}

// number skips a number's characters; the decoder judges its form.
func (w *shapeWalk) number() bool {
	start := w.pos
	for w.pos < len(w.data) && strings.IndexByte("+-.0123456789eE", w.data[w.pos]) >= 0 {
		w.pos++
	}
	return w.pos > start
}

// decodeKey is a member's name from its JSON text.
func decodeKey(key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key)
	}
	s, err := strconv.Unquote(`"` + string(key) + `"`)
	if err != nil {
		var decoded string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &decoded) == nil {
			return decoded
		}
		return string(key)
	}
	return s
}

// equalKey reports whether the member named by key (JSON text) is name,
// in any letter case, as the validator matches them.
func equalKey(key []byte, name string) bool {
	if string(key) == name {
		return true
	}
	if len(key) > 4*len(name)+8 {
		return false
	}
	if ascii(key) {
		// Without escapes or other letters the key is its own name: fold
		// it byte by byte, allocating nothing.
		if len(key) != len(name) {
			return false
		}
		for i, c := range key {
			if name[i] >= utf8.RuneSelf {
				return strings.EqualFold(string(key), name)
			}
			if lower(c) != lower(name[i]) {
				return false
			}
		}
		return true
	}
	return strings.EqualFold(decodeKey(key), name)
}

// ascii reports whether a key's JSON text is plain ASCII without escapes.
func ascii(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// echoRaw is the input of an item about the JSON text raw: the text
// itself, which ValidationFailed's echo (redact.Echo) cuts as it reads it,
// decoding nothing it does not show.
func echoRaw(raw []byte) any { return json.RawMessage(raw) }

// echoParent is the input of a missing member's item: its parent object,
// raw; the body's field_values never (top: raw is the whole body, whose
// members are then listed, when few enough to be echoed, with
// field_values as {}).
func echoParent(raw []byte, top bool) any {
	if !top {
		return echoRaw(raw)
	}
	body := gjson.ParseBytes(raw)
	n := 0
	body.ForEach(func(_, _ gjson.Result) bool { n++; return n <= redact.MaxEchoedMembers })
	if n > redact.MaxEchoedMembers {
		return echoRaw(raw)
	}
	members := map[string]any{}
	body.ForEach(func(key, value gjson.Result) bool {
		members[key.String()] = json.RawMessage(value.Raw)
		return true
	})
	withoutAnswers(members)
	return members
}

// withoutAnswers replaces a body's field_values object, the applicant's
// answers, by {} so that a 422 never carries them back.
func withoutAnswers(body any) {
	if m, ok := body.(map[string]any); ok {
		switch v := m["field_values"].(type) {
		case map[string]any:
			m["field_values"] = map[string]any{}
		case json.RawMessage:
			if gjson.ParseBytes(v).IsObject() {
				m["field_values"] = map[string]any{}
			}
		}
	}
}
