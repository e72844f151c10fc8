package decide

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// envelope is one response's members: the per-call stamps and identity
// around the cached members.
type envelope struct {
	outcome engine.Outcome
	target  *catalog.PreparedRuleset
	// book is the rulebook of a rulebook call; nil for a ruleset call.
	book         *catalog.PreparedRulebook
	inputsHash   string
	decisionID   string
	decisionTime time.Time
	// decisionDate is the ordinal date the decision was made as of.
	decisionDate int64
	// members is the cached JSON from fields_provided to graph_overlay;
	// written by writeEnvelope, never copied.
	members  []byte
	timing   *timing
	warnings []warning
	// answersLogged is the answer logging setting the decision's answers
	// were kept under; nil when they were not (the default).
	answersLogged *answersLogged
}

// encode returns the envelope's JSON around e.members: head ends just
// before them, tail starts just after. Members are in the order of
// decideResponse.
func (e *envelope) encode() (head, tail []byte, err error) {
	b := make([]byte, 0, 512)
	b = append(b, `{"decision":"`...)
	b = append(b, e.outcome.String()...)
	b = append(b, `","slug":`...)
	b = appendJSONString(b, e.target.Slug)
	if e.book == nil {
		b = append(b, `,"ruleset_id":`...)
		b = appendJSONString(b, e.target.ID)
	} else {
		b = append(b, `,"rulebook_id":`...)
		b = appendJSONString(b, e.book.Rulebook.ID)
		release, err := json.Marshal(resource.ReleaseOf(e.book.Release))
		if err != nil {
			return nil, nil, fmt.Errorf("encode release: %w", err)
		}
		b = append(b, `,"release":`...)
		b = append(b, release...)
	}
	b = append(b, `,"ruleset_version":`...)
	b = appendJSONString(b, e.target.Label)
	b = append(b, `,"content_digest":`...)
	b = appendJSONString(b, e.target.ContentDigest)
	b = append(b, `,"engine_version":`...)
	b = appendJSONString(b, engine.Version)
	b = append(b, `,"decision_id":`...)
	b = appendJSONString(b, e.decisionID)
	b = append(b, `,"inputs_hash":`...)
	b = appendJSONString(b, e.inputsHash)
	b = append(b, `,"decision_time":"`...)
	b = e.decisionTime.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","decision_date":"`...)
	b = append(b, value.FormatDate(e.decisionDate)...)
	b = append(b, `",`...)
	split := len(b)
	if e.timing != nil {
		b = append(b, `,"timing":{"total_ms":`...)
		b = strconv.AppendFloat(b, e.timing.TotalMS, 'f', -1, 64)
		b = append(b, '}')
	}
	if len(e.warnings) > 0 {
		w, err := json.Marshal(e.warnings)
		if err != nil {
			return nil, nil, fmt.Errorf("encode warnings: %w", err)
		}
		b = append(b, `,"warnings":`...)
		b = append(b, w...)
	}
	if e.answersLogged != nil {
		a, err := json.Marshal(e.answersLogged)
		if err != nil {
			return nil, nil, fmt.Errorf("encode answers_logged: %w", err)
		}
		b = append(b, `,"answers_logged":`...)
		b = append(b, a...)
	}
	b = append(b, '}')
	return b[:split:split], b[split:], nil
}

// writeEnvelope writes the 200 response: head, the cached members and
// tail, with a Content-Length so the body is not chunked.
func writeEnvelope(hc huma.Context, head, members, tail []byte) {
	hc.SetHeader("Content-Type", "application/json")
	hc.SetHeader("Content-Length", strconv.Itoa(len(head)+len(members)+len(tail)))
	hc.SetStatus(http.StatusOK)
	w := hc.BodyWriter()
	for _, part := range [][]byte{head, members, tail} {
		if _, err := w.Write(part); err != nil {
			return // the client went away; nothing more to tell it
		}
	}
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced, everything else as is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
