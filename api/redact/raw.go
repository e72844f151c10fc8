package redact

import (
	"encoding/json"
	"fmt"
	"github.com/eligo/eligo/auth"
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// echoedRaw is echoedValue's cut of raw, a JSON value's text, reading
// only what the echo shows: an object or array is counted before any of
// it is decoded, and of a string only the opening is.
func echoedRaw(raw []byte, depth int, budget *int) any {
	v := gjson.ParseBytes(raw)
	switch {
	case v.IsObject():
		n := 0
		v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
		if depth >= MaxEchoedDepth || n > MaxEchoedMembers || *budget <= 0 {
			return fmt.Sprintf("(an object of %d members)", n)
		}
		members := make(map[string]any, n)
		v.ForEach(func(key, value gjson.Result) bool {
			members[key.String()] = json.RawMessage(value.Raw)
			return true
		})
		return echoedValue(members, depth, budget)
	case v.IsArray():
		var items []any
		v.ForEach(func(_, value gjson.Result) bool {
			items = append(items, json.RawMessage(value.Raw))
			return len(items) <= MaxEchoedMembers
		})
		if len(items) > MaxEchoedMembers {
			n := 0
			v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
			return fmt.Sprintf("(an array of %d items)", n)
		}
		return echoedValue(items, depth, budget)
	case v.Type == gjson.String:
		opening, total := stringOpening(v.Raw)
		return echoedString(opening, total, budget)
	}
	return v.Value()
}

// stringOpening decodes the opening of a JSON string's text (quotes
// included), enough for an echo, and counts the bytes of the whole
// decoded string without decoding the rest.
func stringOpening(raw string) (string, int) {
	body := raw[1 : len(raw)-1]
	limit := MaxEchoedString + auth.KeyLength
	cut, total := -1, 0
	for i := 0; i < len(body); {
		if total >= limit && cut < 0 {
			cut = i
		}
		if body[i] != '\\' || i+1 >= len(body) {
			total++
			i++
			continue
		}
		if body[i+1] != 'u' || i+6 > len(body) {
			total++
			i += 2
			continue
		}
		code, _ := strconv.ParseUint(body[i+2:i+6], 16, 32)
		r := rune(code)
		i += 6
		if r >= 0xD800 && r < 0xDC00 && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
			total += 4 // a surrogate pair: one character of four bytes
			i += 6
			continue
		}
		if n := utf8.RuneLen(r); n > 0 {
			total += n
		} else {
			total += 3 // U+FFFD
		}
	}
	if cut < 0 {
		cut = len(body)
	}
	var opening string
	if json.Unmarshal([]byte(`"`+body[:cut]+`"`), &opening) != nil {
		// The cut fell inside an escape: the opening without it.
		for cut > 0 && json.Unmarshal([]byte(`"`+body[:cut]+`"`), &opening) != nil {
			cut--
		}
	}
	return opening, total
}
