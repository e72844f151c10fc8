package engine

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/eligo/eligo/engine/value"
	"github.com/gowebpki/jcs"
)

// FieldError is one field_values entry that could not be applied. On the
// wire: {"field": "<key>", "value": <what was sent>, "type": "<expected
// field type>", "message": "<sentence>"}; value is omitted when the key was
// not sent (an evaluation error), type when the key is not a declared field.
type FieldError struct {
	// Field is the key as sent, declared or not; for an overflow, the
	// first field the criterion reads; empty when the error concerns no
	// one key (inputs converted for another ruleset).
	Field string `json:"field"`
	// Value is the value sent for the key, re-encoded as JSON; nil for an
	// evaluation error.
	Value json.RawMessage `json:"value,omitempty"`
	// Type is the declared field's type (int, decimal, bool, enum or
	// date); empty for an unknown key or an evaluation error.
	Type string `json:"type,omitempty"`
	// Message says in one sentence what is wrong with the value.
	Message string `json:"message"`
}

// Inputs are field values bound to a ruleset's slots, ready to evaluate.
// Values[i] is the answer for Ruleset.Fields[i]; an unanswered field (left
// out, or sent as JSON null) is an unknown Value.
type Inputs struct {
	// Values holds one answer per field slot; see above.
	Values []value.Value
	// FieldErrors are the keys that could not be applied, sorted by key.
	FieldErrors []FieldError
	// Provided counts the non-null keys sent, errors included.
	Provided int
	// Unused are answered fields that no criterion reads (a typo signal).
	Unused []string
}

// ErrNotObject is returned when field_values is not a JSON object at all:
// empty, or another JSON value (an array, a string, null, ...). Bad keys
// and values inside an object are FieldErrors instead, and an object that
// cannot be read (see Convert) fails with another error.
var ErrNotObject = errors.New("field_values must be a JSON object")

// ErrNotIJSON is returned (wrapped) by InputsHash for JSON that RFC 8785
// cannot canonicalise because it is not I-JSON (RFC 7493): a member name
// repeated in one object, a string that is not valid Unicode (invalid
// UTF-8, a lone UTF-16 surrogate escape), or nesting deeper than 10000
// levels. Such input is ambiguous or unreadable as sent, so it has no
// inputs_hash. (A number beyond the float64 range is the one departure
// InputsHash accepts; see there.)
var ErrNotIJSON = errors.New("not I-JSON (RFC 7493)")

// Convert binds a request's raw field_values JSON to the ruleset. Numbers
// are read exactly (never through float64). It fails with ErrNotObject
// when the bytes are not a JSON object, and with another error when they
// start one that cannot be read (broken, followed by more data, or nested
// beyond encoding/json's 10000 levels); every bad key or value of a
// readable object becomes a FieldError.
//
// The rules: an unknown key is an error; null means unanswered; an int
// field takes a JSON number with no fraction (1, 1.0 and 1e0 are the same;
// 1.5 is an error); a decimal takes any number of up to 18 significant
// digits; a bool takes true or false only; an enum takes one of its listed
// strings; a date takes "YYYY-MM-DD" (a real calendar date, no time part)
// or an integer ordinal from 1 (0001-01-01) to 3652059 (9999-12-31).
func (r *Ruleset) Convert(raw []byte) (*Inputs, error) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, ErrNotObject
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("read field_values: %w", err)
	}
	if dec.More() {
		return nil, errors.New("read field_values: trailing data after the object")
	}
	return r.ConvertMap(m), nil
}

// ConvertMap is Convert for an already decoded object. Numbers may be
// json.Number (exact), float64, or Go integers.
func (r *Ruleset) ConvertMap(m map[string]any) *Inputs {
	in := &Inputs{Values: make([]value.Value, len(r.Fields))}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ids []string // the field ids, for suggestions, made when first needed
	unknown := 0
	for _, k := range keys {
		v := m[k]
		if v != nil {
			in.Provided++
		}
		slot := r.FieldIndex(k)
		if slot < 0 {
			msg := fmt.Sprintf("unknown field %q: this ruleset has no such field", k)
			// Only the first unknown keys get a suggestion: each costs an
			// edit distance to every field (see maxSuggestions).
			if unknown++; unknown <= maxSuggestions {
				if ids == nil {
					ids = r.fieldIDs()
				}
				if near := Nearest(k, ids); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
			}
			in.FieldErrors = append(in.FieldErrors, FieldError{Field: k, Value: rawJSON(v), Message: msg})
			continue
		}
		f := &r.Fields[slot]
		if f.Member != nil {
			in.FieldErrors = append(in.FieldErrors, FieldError{Field: k, Value: rawJSON(v), Message: fmt.Sprintf(
				"answers about one member go in the list: send %q as a list of objects, e.g. [{%q: ...}]", f.Member.List, f.Member.Name)})
			continue
		}
		if v == nil {
			continue
		}
		if f.List != nil {
			r.convertList(in, slot, v, &unknown)
			continue
		}
		val, msg := convertValue(f, v)
		if msg != "" {
			in.FieldErrors = append(in.FieldErrors, FieldError{Field: k, Value: rawJSON(v), Type: f.Type.String(), Message: msg})
			continue
		}
		in.Values[slot] = val
	}
	read := make([]bool, len(r.Fields))
	for i := range r.criteria {
		c, _ := r.CriterionAt(i)
		for _, s := range c.Slots {
			read[s] = true
		}
	}
	for s, v := range in.Values {
		if v.Known && !read[s] {
			in.Unused = append(in.Unused, r.Fields[s].ID)
		}
	}
	return in
}

// convertList binds the list of members sent for the list field at slot:
// its length to the list's field, each member's answers to that member's
// fields. A field error names the member ("member[2].age", counting
// from 0 as sent).
// unknown counts the unknown keys met so far, which suggestions are
// limited by (see maxSuggestions).
func (r *Ruleset) convertList(in *Inputs, slot int, v any, unknown *int) {
	f := &r.Fields[slot]
	members, ok := v.([]any)
	if !ok {
		in.FieldErrors = append(in.FieldErrors, FieldError{Field: f.ID, Value: rawJSON(v), Type: "list", Message: fmt.Sprintf(
			"expected a list of members, one object of answers each (%s), got %s", f.List.Title, describeJSON(v))})
		return
	}
	if len(members) > f.List.Max {
		in.FieldErrors = append(in.FieldErrors, FieldError{Field: f.ID, Type: "list", Message: fmt.Sprintf(
			"%d members were sent, and these rules handle at most %d", len(members), f.List.Max)})
		return
	}
	in.Values[slot] = value.IntValue(int64(len(members)))
	for i, m := range members {
		answers, ok := m.(map[string]any)
		if !ok {
			in.FieldErrors = append(in.FieldErrors, FieldError{Field: fmt.Sprintf("%s[%d]", f.ID, i), Value: rawJSON(m), Type: "object",
				Message: fmt.Sprintf("expected an object of one member's answers, got %s", describeJSON(m))})
			continue
		}
		keys := make([]string, 0, len(answers))
		for k := range answers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			a := answers[k]
			ms, ok := r.memberSlots[memberKey{f.ID, i, k}]
			if !ok {
				id := MemberFieldID(f.ID, i, k)
				msg := fmt.Sprintf("unknown field %q: the rules ask one %s no such question", k, f.ID)
				if *unknown++; *unknown <= maxSuggestions {
					if near := Nearest(k, r.memberNames(f.ID)); near != "" {
						msg += fmt.Sprintf("; did you mean %q?", near)
					}
				}
				in.FieldErrors = append(in.FieldErrors, FieldError{Field: id, Value: rawJSON(a), Message: msg})
				continue
			}
			if a == nil {
				continue
			}
			in.Provided++
			val, msg := convertValue(&r.Fields[ms], a)
			if msg != "" {
				in.FieldErrors = append(in.FieldErrors, FieldError{Field: r.Fields[ms].ID, Value: rawJSON(a), Type: r.Fields[ms].Type.String(), Message: msg})
				continue
			}
			in.Values[ms] = val
		}
	}
}

// memberNames are the names of the fields of one member of list.
func (r *Ruleset) memberNames(list string) []string {
	var names []string
	for i := range r.Fields {
		if m := r.Fields[i].Member; m != nil && m.List == list && m.Index == 0 {
			names = append(names, m.Name)
		}
	}
	return names
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return b
}

// numberText returns the decimal text of a JSON or Go number, or false.
func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return "", false
		}
		return strconv.FormatFloat(n, 'g', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(n), 'g', -1, 32), true
	case int:
		return strconv.Itoa(n), true
	case int64:
		return strconv.FormatInt(n, 10), true
	case int32:
		return strconv.FormatInt(int64(n), 10), true
	}
	return "", false
}

func describeJSON(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "true/false"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	if _, ok := numberText(v); ok {
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// convertValue converts one non-null wire value for field f, returning a
// message when it cannot.
func convertValue(f *Field, v any) (value.Value, string) {
	switch f.Type {
	case SortInt, SortDecimal:
		text, ok := numberText(v)
		if !ok {
			return value.Value{}, fmt.Sprintf("expected a number, got %s", describeJSON(v))
		}
		n, err := value.ParseNumber(text)
		if err != nil {
			return value.Value{}, fmt.Sprintf("cannot read %s as a number: %v", text, err)
		}
		if f.Type == SortInt && n.Scale != 0 {
			return value.Value{}, fmt.Sprintf("expected a whole number, got %s", text)
		}
		if f.Range != nil && !f.Range.Contains(n) {
			return value.Value{}, fmt.Sprintf("%s is outside the range the rules allow for this field: %s", text, f.Range)
		}
		return n, ""
	case SortBool:
		b, ok := v.(bool)
		if !ok {
			return value.Value{}, fmt.Sprintf("expected true or false, got %s", describeJSON(v))
		}
		return value.BoolValue(b), ""
	case SortEnum:
		s, ok := v.(string)
		if !ok {
			return value.Value{}, fmt.Sprintf("expected one of %s, got %s", quoteList(f.EnumValues), describeJSON(v))
		}
		for i, e := range f.EnumValues {
			if e == s {
				return value.Value{Num: int64(i), Known: true}, ""
			}
		}
		return value.Value{}, fmt.Sprintf("%q is not one of %s", s, quoteList(f.EnumValues))
	case SortDate:
		if s, ok := v.(string); ok {
			ord, ok := value.ParseDate(s)
			if !ok {
				return value.Value{}, fmt.Sprintf("%q is not a calendar date in the form YYYY-MM-DD", s)
			}
			return value.Value{Num: ord, Known: true}, ""
		}
		text, ok := numberText(v)
		if !ok {
			return value.Value{}, fmt.Sprintf("expected a date (\"YYYY-MM-DD\" or a day ordinal), got %s", describeJSON(v))
		}
		n, err := value.ParseNumber(text)
		if err != nil || n.Scale != 0 || n.Num < 1 || n.Num > value.MaxOrdinal {
			return value.Value{}, fmt.Sprintf("a date ordinal must be a whole number from 1 (0001-01-01) to %d (9999-12-31), got %s", value.MaxOrdinal, text)
		}
		return value.Value{Num: n.Num, Known: true}, ""
	}
	return value.Value{}, "field has no type"
}

// InputsHash returns "sha256:" + hex SHA-256 of the RFC 8785 canonical
// form of field_values: the same for any key order, white space, or
// spelling of a number (1, 1.0, 1e0).
//
// RFC 8785 reads numbers as float64, so it has no form for a number beyond
// that range (1e400). Such a number is still an answer the caller sent,
// which Convert reports as a FieldError (no field type takes it), so it
// must not fail the hash: the document is canonicalised with each such
// number standing in for itself, written in one normal spelling (1e400,
// -1.5e999: the digits without redundant zeros and an exponent without a
// plus sign). That keeps the hash invariant under key order, white space
// and number spelling, and it can never equal the hash of a document
// without such a number, since RFC 8785 writes a positive exponent with a
// plus sign. Any other obstacle is not I-JSON and fails with ErrNotIJSON;
// JSON that is not JSON at all fails with another error.
func InputsHash(fieldValues []byte) (string, error) {
	canon, err := canonicalize(fieldValues)
	if err == nil {
		return inputsDigest(canon), nil
	}
	var random [16]byte
	_, _ = rand.Read(random[:]) // crypto/rand.Read never fails
	nonce := hex.EncodeToString(random[:])
	marked, huge, walkErr := markHugeNumbers(fieldValues, nonce)
	if walkErr != nil {
		return "", fmt.Errorf("canonicalise field_values: %w", err)
	}
	if len(huge) > 0 {
		if canon, err = jcs.Transform(marked); err == nil {
			for i, n := range huge {
				canon = bytes.Replace(canon, hugeMark(nonce, i), []byte(n), 1)
			}
			return inputsDigest(canon), nil
		}
	}
	return "", fmt.Errorf("canonicalise field_values: %w: %v", ErrNotIJSON, err)
}

func inputsDigest(b []byte) string {
	sum := sha256.Sum256(b)
	var digest [len("sha256:") + 2*sha256.Size]byte
	copy(digest[:], "sha256:")
	hex.Encode(digest[len("sha256:"):], sum[:])
	return string(digest[:])
}

// hugeMark is the string, as RFC 8785 writes it, quotes included, that
// stands in for the i-th number beyond float64 while a document is
// canonicalised. nonce is drawn afresh for each document, so no string a
// caller sent can be taken for a mark.
func hugeMark(nonce string, i int) []byte {
	return []byte(`"eligo-number-beyond-float64:` + nonce + ":" + strconv.Itoa(i) + `"`)
}

// markHugeNumbers returns a copy of the JSON raw in which the i-th number
// beyond the float64 range is replaced by the string hugeMark(nonce, i),
// and those numbers in their normal spelling (normalNumber), in order.
func markHugeNumbers(raw []byte, nonce string) ([]byte, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []byte
	var huge []string
	last, depth, values := 0, 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			values++
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(string(n), 64); err == nil || !math.IsInf(f, 0) {
			continue
		}
		end := int(dec.InputOffset())
		start := end - len(n)
		out = append(append(out, raw[last:start]...), hugeMark(nonce, len(huge))...)
		huge = append(huge, normalNumber(string(n)))
		last = end
	}
	if depth != 0 || values != 1 {
		// The token reader reads a stream of values and stops quietly at
		// the end of the input, even inside one.
		return nil, nil, errors.New("not a single JSON value")
	}
	if huge == nil {
		return raw, nil, nil
	}
	return append(out, raw[last:]...), huge, nil
}

// normalNumber writes a JSON number in one spelling per value: an optional
// minus, the significant digits with a point after the first when there
// are more, and the exponent of the first digit ("1e400" for 1e400, 10e399
// and 1E+400). Only numbers beyond float64 are written so, and they are
// never zero.
func normalNumber(n string) string {
	sign := ""
	if strings.HasPrefix(n, "-") {
		sign, n = "-", n[1:]
	}
	mantissa, expText, _ := strings.Cut(strings.ToLower(n), "e")
	exp, ok := new(big.Int).SetString(strings.TrimPrefix(expText, "+"), 10)
	if !ok {
		exp = new(big.Int)
	}
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	trimmed := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	if trimmed == "" {
		return "0"
	}
	exp.Add(exp, big.NewInt(int64(len(trimmed)-1)))
	if len(trimmed) > 1 {
		trimmed = trimmed[:1] + "." + trimmed[1:]
	}
	return sign + trimmed + "e" + exp.String()
}

// ValueJSON renders the answer v of field slot as it appears in supporting
// facts and traces: a number, true/false, the enum string, or "YYYY-MM-DD".
func (r *Ruleset) ValueJSON(slot int, v value.Value) json.RawMessage {
	f := &r.Fields[slot]
	if !v.Known {
		return json.RawMessage("null")
	}
	enum := ""
	if f.Type == SortEnum && v.Num >= 0 && int(v.Num) < len(f.EnumValues) {
		enum = f.EnumValues[v.Num]
	}
	return constJSON(f.Type, v, enum)
}
