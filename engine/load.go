package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/eligo/eligo/engine/value"
	"github.com/gowebpki/jcs"
)

// This file loads a stored compiled ruleset: the JSON that json.Marshal
// writes for a Ruleset (the document ContentDigest hashes) is decoded into
// the exported IR members, strictly, then linked and checked by Build's
// rules. No rules text is parsed, so a ruleset stored by an earlier
// compiler keeps its meaning and its digest whatever today's compiler
// would make of its source.

// LoadIR turns stored IR bytes of the given version (the JSON json.Marshal
// writes for a compiled Ruleset) into a ruleset that behaves exactly as the
// one Compile produced: same evaluation, traces, explanations, sentences,
// graph and ContentDigest. It parses no rules text. The bytes may come back
// from storage with keys reordered, white space changed and numbers
// respelled (PostgreSQL jsonb): RFC 8785 canonicalisation makes none of
// that matter, and numbers are read exactly, never through float64.
//
// Every member must be one the IR has, present when required and of the
// right JSON type, and the result must pass Build's checks; otherwise the
// error names the member at fault, e.g. `groups[2].criteria[0].expr.args[1]:
// unknown operator "~="`. A version this engine does not read is refused
// with an error wrapping ErrUnknownIRVersion, and a version-1 document
// that uses what version 2 added is refused as not that version.
//
// The loaded ruleset's ContentDigest is the hash of the canonical form of
// data itself. As a guard that the loader understood the whole document,
// the loaded ruleset is marshalled again and must canonicalise to the very
// same bytes; if it does not, LoadIR refuses the data rather than serve a
// ruleset whose digest does not describe it.
func LoadIR(version int, data []byte) (*Ruleset, error) {
	if version < 1 || version > IRVersion {
		return nil, unknownVersionError(version)
	}
	r, err := decodeIR(data)
	if err != nil {
		return nil, fmt.Errorf("load compiled IR: %w", err)
	}
	canon, err := jcs.Transform(data)
	if err != nil {
		return nil, fmt.Errorf("load compiled IR: not canonicalisable JSON (RFC 8785): %w", err)
	}
	if err := build(r, true); err != nil {
		return nil, fmt.Errorf("load compiled IR: %w", err)
	}
	if need := r.FormatVersion(); need > version {
		return nil, fmt.Errorf("load compiled IR: stored as version %d, but it uses lists, named values or operators of version %d", version, need)
	}
	if err := encodesBack(r, canon); err != nil {
		return nil, fmt.Errorf("load compiled IR: %w", err)
	}
	return r, nil
}

// encodesBack refuses a loaded ruleset whose digest is not the hash of the
// stored document's canonical form: the decoder read something it did not
// keep, so the ruleset would not be the content its digest names.
func encodesBack(r *Ruleset, canon []byte) error {
	if r.digest == digestOf(canon) {
		return nil
	}
	again, err := r.canonicalJSON()
	if err != nil {
		return err
	}
	return fmt.Errorf("the loaded ruleset does not encode back to the stored document: %s", firstDifference(canon, again))
}

// firstDifference describes where two canonical documents first differ.
func firstDifference(stored, loaded []byte) string {
	i := 0
	for i < len(stored) && i < len(loaded) && stored[i] == loaded[i] {
		i++
	}
	excerpt := func(b []byte) string {
		from, to := max(0, i-30), min(len(b), i+30)
		return fmt.Sprintf("%q", b[from:to])
	}
	return fmt.Sprintf("at byte %d of the canonical form, stored %s, loaded %s", i, excerpt(stored), excerpt(loaded))
}

// decodeIR reads the IR JSON into a fresh Ruleset's exported members. It
// decodes into a generic tree first (one pass, numbers as json.Number,
// encoding/json's depth limit) and reads that member by member, so that
// every error can say where it is.
func decodeIR(data []byte) (*Ruleset, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("malformed JSON: more data after the document")
	}
	return readRuleset(doc)
}

// object is a JSON object being read, with its path for messages.
type object struct {
	// path is where the object sits: "" for the document, else e.g.
	// "groups[0].criteria[1]".
	path string
	// m holds the object's members.
	m map[string]any
}

// readObject checks that v is an object whose members are all in required
// or optional and that every required one is present.
func readObject(path string, v any, required []string, optional ...string) (object, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return object{}, fmt.Errorf("%s: must be an object, not %s", where(path), describe(v))
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return object{}, fmt.Errorf("%s: unknown member %q (the members are %s)", where(path), unknown[0],
			strings.Join(append(slices.Clone(required), optional...), ", "))
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return object{}, fmt.Errorf("%s: missing required member %q", where(path), k)
		}
	}
	return object{path: path, m: m}, nil
}

// where names a path in a message; the empty path is the document itself.
func where(path string) string {
	if path == "" {
		return "the IR document"
	}
	return path
}

// describe names a JSON value's type for messages.
func describe(v any) string {
	if v == nil {
		return "null"
	}
	return describeJSON(v)
}

// at is the path of member key.
func (o object) at(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

func (o object) str(key string) (string, error) {
	s, ok := o.m[key].(string)
	if !ok {
		return "", fmt.Errorf("%s: must be a string, not %s", o.at(key), describe(o.m[key]))
	}
	return s, nil
}

// optStr reads a member json.Marshal leaves out when empty (omitempty):
// absent is "", and present it must not be empty, since it would not
// encode back.
func (o object) optStr(key string) (string, error) {
	if _, ok := o.m[key]; !ok {
		return "", nil
	}
	s, err := o.str(key)
	if err == nil && s == "" {
		err = fmt.Errorf("%s: empty; an empty %s is left out", o.at(key), key)
	}
	return s, err
}

// optStringMap reads an object of strings json.Marshal leaves out when
// empty: absent is nil, and present it must hold a member.
func (o object) optStringMap(key string) (map[string]string, error) {
	v, ok := o.m[key]
	if !ok {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, fmt.Errorf("%s: must be an object of at least one string, not %s", o.at(key), describe(v))
	}
	out := make(map[string]string, len(m))
	for k, s := range m {
		if out[k], ok = s.(string); !ok || out[k] == "" {
			return nil, fmt.Errorf("%s.%s: must be a non-empty string, not %s", o.at(key), k, describe(s))
		}
	}
	return out, nil
}

func (o object) boolean(key string) (bool, error) {
	b, ok := o.m[key].(bool)
	if !ok {
		return false, fmt.Errorf("%s: must be true or false, not %s", o.at(key), describe(o.m[key]))
	}
	return b, nil
}

// integer reads a whole number, in any spelling (12, 12.0, 1.2e1).
func (o object) integer(key string) (int, error) {
	n, ok := o.m[key].(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: must be a number, not %s", o.at(key), describe(o.m[key]))
	}
	v, err := value.ParseNumber(string(n))
	if err != nil || v.Scale != 0 || v.Num < math.MinInt || v.Num > math.MaxInt {
		return 0, fmt.Errorf("%s: %s is not a whole number an int holds", o.at(key), n)
	}
	return int(v.Num), nil
}

// list reads a list member with read, one item at a time; null reads as a
// nil slice (json.Marshal's nil), [] as an empty one.
func list[T any](o object, key string, read func(path string, v any) (T, error)) ([]T, error) {
	v := o.m[key]
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be a list, not %s", o.at(key), describe(v))
	}
	out := make([]T, len(items))
	for i, item := range items {
		x, err := read(fmt.Sprintf("%s[%d]", o.at(key), i), item)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// readString reads a list item that must be a string.
func readString(path string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: must be a string, not %s", path, describe(v))
	}
	return s, nil
}

// errs keeps the first error of a run of member reads, so a reader can
// read every member and check once.
type errs struct{ err error }

func (e *errs) str(s string, err error) string {
	if e.err == nil {
		e.err = err
	}
	return s
}

func (e *errs) boolean(b bool, err error) bool {
	if e.err == nil {
		e.err = err
	}
	return b
}

func (e *errs) keep(err error) {
	if e.err == nil {
		e.err = err
	}
}

func readRuleset(doc any) (*Ruleset, error) {
	o, err := readObject("", doc, []string{"slug", "section_id", "name", "description", "sources",
		"fields", "groups", "outcome", "reads_decision_date"}, "effective", "values")
	if err != nil {
		return nil, err
	}
	var e errs
	r := &Ruleset{
		Slug:              e.str(o.str("slug")),
		SectionID:         e.str(o.str("section_id")),
		Name:              e.str(o.str("name")),
		Description:       e.str(o.str("description")),
		ReadsDecisionDate: e.boolean(o.boolean("reads_decision_date")),
	}
	if e.err != nil {
		return nil, e.err
	}
	if v, ok := o.m["effective"]; ok {
		if r.Effective, err = readPeriod(o.at("effective"), v); err != nil {
			return nil, err
		}
	}
	if r.Sources, err = list(o, "sources", readSource); err != nil {
		return nil, err
	}
	if r.Fields, err = list(o, "fields", readField); err != nil {
		return nil, err
	}
	if _, ok := o.m["values"]; ok {
		if r.Values, err = list(o, "values", readValue); err != nil {
			return nil, err
		}
	}
	if r.Groups, err = list(o, "groups", readGroup); err != nil {
		return nil, err
	}
	if o.m["outcome"] != nil {
		if r.Outcome, err = readExpr(o.at("outcome"), o.m["outcome"]); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// readPeriod reads the effective member: {"from": date, "until": date},
// until optional (an open-ended period), both "YYYY-MM-DD". The member was
// added within IR version 1: IR without it (every ruleset stored before)
// holds for every date, as it always did.
func readPeriod(path string, v any) (*Period, error) {
	o, err := readObject(path, v, []string{"from"}, "until")
	if err != nil {
		return nil, err
	}
	date := func(key string) (int64, error) {
		s, err := o.str(key)
		if err != nil {
			return 0, err
		}
		d, ok := value.ParseDate(s)
		if !ok {
			return 0, fmt.Errorf("%s: %q is not a YYYY-MM-DD calendar date", o.at(key), s)
		}
		return d, nil
	}
	p := &Period{}
	if p.From, err = date("from"); err != nil {
		return nil, err
	}
	if _, ok := o.m["until"]; ok {
		if p.Until, err = date("until"); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func readSource(path string, v any) (Source, error) {
	o, err := readObject(path, v, []string{"id", "title", "licence"}, "url", "artefact")
	if err != nil {
		return Source{}, err
	}
	var e errs
	s := Source{ID: e.str(o.str("id")), Title: e.str(o.str("title")), URL: e.str(o.optStr("url")),
		Artefact: e.str(o.optStr("artefact")), Licence: e.str(o.str("licence"))}
	return s, e.err
}

func readField(path string, v any) (Field, error) {
	o, err := readObject(path, v, []string{"field_id", "field_type", "weight", "enum_values", "notes"},
		"question", "description", "x_ui_widget", "label", "unit", "value_labels", "range", "list", "member")
	if err != nil {
		return Field{}, err
	}
	var e errs
	f := Field{ID: e.str(o.str("field_id")), Question: e.str(o.optStr("question")),
		Description: e.str(o.optStr("description")), Widget: e.str(o.optStr("x_ui_widget")),
		Label: e.str(o.optStr("label")), Unit: e.str(o.optStr("unit"))}
	if f.ValueLabels, err = o.optStringMap("value_labels"); err != nil {
		return Field{}, err
	}
	if typ := e.str(o.str("field_type")); e.err == nil {
		if err := f.Type.UnmarshalText([]byte(typ)); err != nil {
			e.keep(fmt.Errorf("%s: %w", o.at("field_type"), err))
		}
	}
	if e.err != nil {
		return Field{}, e.err
	}
	if f.Weight, err = o.integer("weight"); err != nil {
		return Field{}, err
	}
	if f.EnumValues, err = list(o, "enum_values", readString); err != nil {
		return Field{}, err
	}
	if v, ok := o.m["range"]; ok {
		if f.Range, err = readRange(o.at("range"), v); err != nil {
			return Field{}, err
		}
	}
	if v, ok := o.m["list"]; ok {
		if f.List, err = readListInfo(o.at("list"), v); err != nil {
			return Field{}, err
		}
	}
	if v, ok := o.m["member"]; ok {
		if f.Member, err = readMemberOf(o.at("member"), v); err != nil {
			return Field{}, err
		}
	}
	f.Notes, err = list(o, "notes", readNote)
	return f, err
}

// readRange reads a field's range member: {"min": number, "max": number},
// either end optional, numbers read exactly. The member was added within
// IR version 1: a field without it (every field stored before) allows any
// number, as it always did.
func readRange(path string, v any) (*Range, error) {
	o, err := readObject(path, v, nil, "min", "max")
	if err != nil {
		return nil, err
	}
	g := &Range{}
	for _, end := range []struct {
		key string
		v   *value.Value
	}{{"min", &g.Min}, {"max", &g.Max}} {
		raw, ok := o.m[end.key]
		if !ok {
			continue
		}
		n, ok := raw.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s: must be a number, not %s", o.at(end.key), describe(raw))
		}
		if *end.v, err = value.ParseNumber(string(n)); err != nil {
			return nil, fmt.Errorf("%s: cannot read %s as a number: %w", o.at(end.key), n, err)
		}
	}
	return g, nil
}

func readNote(path string, v any) (Note, error) {
	o, err := readObject(path, v, []string{"note_text", "source", "metadata"})
	if err != nil {
		return Note{}, err
	}
	var e errs
	n := Note{Text: e.str(o.str("note_text")), Source: e.str(o.str("source"))}
	if e.err != nil {
		return Note{}, e.err
	}
	m, err := readObject(o.at("metadata"), o.m["metadata"], []string{"type", "section"})
	if err != nil {
		return Note{}, err
	}
	n.Metadata = NoteMetadata{Type: e.str(m.str("type")), Section: e.str(m.str("section"))}
	return n, e.err
}

func readGroup(path string, v any) (Group, error) {
	o, err := readObject(path, v, []string{"id", "kind", "title", "criteria"})
	if err != nil {
		return Group{}, err
	}
	var e errs
	g := Group{ID: e.str(o.str("id")), Kind: GroupKind(e.str(o.str("kind"))), Title: e.str(o.str("title"))}
	if e.err != nil {
		return Group{}, e.err
	}
	g.Criteria, err = list(o, "criteria", readCriterion)
	return g, err
}

func readCriterion(path string, v any) (Criterion, error) {
	o, err := readObject(path, v, []string{"id", "title", "discretionary", "expr", "citations", "fields"})
	if err != nil {
		return Criterion{}, err
	}
	var e errs
	c := Criterion{ID: e.str(o.str("id")), Title: e.str(o.str("title")), Discretionary: e.boolean(o.boolean("discretionary"))}
	if e.err != nil {
		return Criterion{}, e.err
	}
	if o.m["expr"] != nil {
		if c.Expr, err = readExpr(o.at("expr"), o.m["expr"]); err != nil {
			return Criterion{}, err
		}
	}
	if c.Citations, err = list(o, "citations", readCitation); err != nil {
		return Criterion{}, err
	}
	c.Fields, err = list(o, "fields", readString)
	return c, err
}

// readValue reads a named value (IR version 2).
func readValue(path string, v any) (NamedValue, error) {
	o, err := readObject(path, v, []string{"id", "title", "type", "citations", "fields"}, "unit", "output", "expr",
		"table", "keys", "rows", "periods")
	if err != nil {
		return NamedValue{}, err
	}
	var e errs
	nv := NamedValue{ID: e.str(o.str("id")), Title: e.str(o.str("title")), Unit: e.str(o.optStr("unit"))}
	typ := e.str(o.str("type"))
	if _, ok := o.m["output"]; ok {
		nv.Output = e.boolean(o.boolean("output"))
	}
	if e.err != nil {
		return NamedValue{}, e.err
	}
	if err := nv.Type.UnmarshalText([]byte(typ)); err != nil {
		return NamedValue{}, fmt.Errorf("%s: %w", o.at("type"), err)
	}
	if _, ok := o.m["table"]; ok {
		if nv.Table, err = o.boolean("table"); err != nil {
			return NamedValue{}, err
		}
	}
	if !nv.Table {
		if nv.Expr, err = readExpr(o.at("expr"), o.m["expr"]); err != nil {
			return NamedValue{}, err
		}
	} else if err := readTable(o, &nv); err != nil {
		return NamedValue{}, err
	}
	if nv.Citations, err = list(o, "citations", readCitation); err != nil {
		return NamedValue{}, err
	}
	nv.Fields, err = list(o, "fields", readString)
	return nv, err
}

// readTable reads a table's keys, and its rows or periods.
func readTable(o object, nv *NamedValue) error {
	var err error
	if _, ok := o.m["expr"]; ok {
		return fmt.Errorf("%s: a table has rows, not an expression", o.at("expr"))
	}
	if _, ok := o.m["keys"]; ok {
		if nv.Keys, err = list(o, "keys", readExpr); err != nil {
			return err
		}
	}
	if _, ok := o.m["rows"]; ok {
		if nv.Rows, err = list(o, "rows", readTableRow); err != nil {
			return err
		}
	}
	if _, ok := o.m["periods"]; ok {
		if nv.Periods, err = list(o, "periods", readTablePeriod); err != nil {
			return err
		}
	}
	return nil
}

func readTablePeriod(path string, v any) (TablePeriod, error) {
	o, err := readObject(path, v, []string{"period", "rows"})
	if err != nil {
		return TablePeriod{}, err
	}
	p, err := readPeriod(o.at("period"), o.m["period"])
	if err != nil {
		return TablePeriod{}, err
	}
	rows, err := list(o, "rows", readTableRow)
	return TablePeriod{Period: *p, Rows: rows}, err
}

func readTableRow(path string, v any) (TableRow, error) {
	o, err := readObject(path, v, []string{"match", "value"})
	if err != nil {
		return TableRow{}, err
	}
	match, err := list(o, "match", readKeyMatch)
	if err != nil {
		return TableRow{}, err
	}
	val, err := readExpr(o.at("value"), o.m["value"])
	return TableRow{Match: match, Value: val}, err
}

// readKeyMatch reads {"any":true}, {"enum":...}, {"bool":...} or a range
// {"min":...,"max":...}; Build resolves an enum's index.
func readKeyMatch(path string, v any) (KeyMatch, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return KeyMatch{}, fmt.Errorf("%s: must be a key match object, not %s", path, describe(v))
	}
	switch {
	case m["any"] != nil:
		o, err := readObject(path, v, []string{"any"})
		if err == nil && m["any"] != true {
			err = fmt.Errorf("%s: must be true", o.at("any"))
		}
		return KeyMatch{Kind: MatchAny}, err
	case m["enum"] != nil:
		o, err := readObject(path, v, []string{"enum"})
		if err != nil {
			return KeyMatch{}, err
		}
		s, err := o.str("enum")
		return KeyMatch{Kind: MatchEnum, Enum: s}, err
	case m["bool"] != nil:
		o, err := readObject(path, v, []string{"bool"})
		if err != nil {
			return KeyMatch{}, err
		}
		b, err := o.boolean("bool")
		return KeyMatch{Kind: MatchBool, Const: value.BoolValue(b)}, err
	}
	g, err := readRange(path, v)
	if err != nil {
		return KeyMatch{}, err
	}
	return KeyMatch{Kind: MatchRange, Min: g.Min, Max: g.Max}, nil
}

func readCitation(path string, v any) (Citation, error) {
	o, err := readObject(path, v, []string{"source", "quote"})
	if err != nil {
		return Citation{}, err
	}
	var e errs
	c := Citation{Source: e.str(o.str("source")), Quote: e.str(o.str("quote"))}
	return c, e.err
}

// readExpr reads one display.expr node (see Expr.MarshalJSON). It leaves
// Sort (except a constant's), Slot and an enum constant's index to Build.
func readExpr(path string, v any) (*Expr, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be an expression object, not %s", path, describe(v))
	}
	typ, ok := m["type"].(string)
	if !ok {
		return nil, fmt.Errorf("%s.type: must be a string (op, field_ref, value_ref, const or group_ref), not %s", path, describe(m["type"]))
	}
	switch typ {
	case "op":
		o, err := readObject(path, v, []string{"type", "operator", "args"})
		if err != nil {
			return nil, err
		}
		op, err := o.str("operator")
		if err != nil {
			return nil, err
		}
		if o.m["args"] == nil {
			return nil, fmt.Errorf("%s: must be a list, not null", o.at("args"))
		}
		args, err := list(o, "args", readExpr)
		return &Expr{Kind: ExprOp, Op: Operator(op), Args: args}, err
	case "field_ref", "group_ref", "value_ref":
		o, err := readObject(path, v, []string{"type", "key"})
		if err != nil {
			return nil, err
		}
		key, err := o.str("key")
		kind := map[string]ExprKind{"field_ref": ExprField, "group_ref": ExprGroup, "value_ref": ExprValue}[typ]
		return &Expr{Kind: kind, Key: key}, err
	case "const":
		return readConst(path, v)
	}
	return nil, fmt.Errorf("%s.type: unknown node type %q (op, field_ref, value_ref, const or group_ref)", path, typ)
}

// readConst reads a const node: the value by its sort, numbers exactly.
func readConst(path string, v any) (*Expr, error) {
	o, err := readObject(path, v, []string{"type", "sort", "value", "field_context"})
	if err != nil {
		return nil, err
	}
	e := &Expr{Kind: ExprConst}
	sortName, err := o.str("sort")
	if err != nil {
		return nil, err
	}
	if err := e.Sort.UnmarshalText([]byte(sortName)); err != nil {
		return nil, fmt.Errorf("%s: %q is not a constant sort (int, decimal, bool, enum or date)", o.at("sort"), sortName)
	}
	if c := o.m["field_context"]; c != nil {
		if e.FieldContext, err = o.str("field_context"); err != nil {
			return nil, err
		}
		if e.FieldContext == "" {
			return nil, fmt.Errorf("%s: empty; a constant with no field is written null", o.at("field_context"))
		}
	}
	raw, vpath := o.m["value"], o.at("value")
	switch e.Sort {
	case SortInt, SortDecimal:
		n, ok := raw.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s: %s constant must be a number, not %s", vpath, an(e.Sort), describe(raw))
		}
		if e.Const, err = value.ParseNumber(string(n)); err != nil {
			return nil, fmt.Errorf("%s: cannot read %s as a number: %w", vpath, n, err)
		}
		if e.Sort == SortInt && e.Const.Scale != 0 {
			return nil, fmt.Errorf("%s: an int constant has no fraction, but this is %s", vpath, n)
		}
	case SortBool:
		b, ok := raw.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: a bool constant must be true or false, not %s", vpath, describe(raw))
		}
		e.Const = value.BoolValue(b)
	case SortEnum:
		s, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf("%s: an enum constant must be a string, not %s", vpath, describe(raw))
		}
		e.Enum, e.Const = s, value.Value{Known: true}
	case SortDate:
		s, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf("%s: a date constant must be a \"YYYY-MM-DD\" string, not %s", vpath, describe(raw))
		}
		ord, ok := value.ParseDate(s)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a YYYY-MM-DD calendar date", vpath, s)
		}
		e.Const = value.Value{Num: ord, Known: true}
	}
	return e, nil
}
