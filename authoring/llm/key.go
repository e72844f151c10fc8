package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
)

// redacted is what every printed, logged or encoded form of a Key shows.
const redacted = "[redacted]"

// Key is an authoring team's own provider key, held for the one request it
// came with. The key is never in a table, a job, a log line, an error or a
// response (docs/authoring.md#generation-with-your-model), so Key makes the safe thing the default: its string, Go-syntax,
// fmt, slog, JSON and text forms are all "[redacted]", it cannot be decoded
// from JSON or text, and Reveal is the only way to read the secret (grep
// for Reveal to audit every use).
//
// The secret sits behind a pointer, so even a Key inside an unexported
// struct field, which fmt prints by reflection without calling any method,
// shows an address and never the text. The zero Key is empty.
type Key struct {
	s *keyText
}

// keyText is the box Key points to; a separate type so that reflection
// over a Key reaches a pointer, not a string.
type keyText struct {
	text string
}

// NewKey wraps secret, trimmed of surrounding white space (a header or form
// value pasted with a trailing newline is the same key). A blank secret
// gives an empty Key.
func NewKey(secret string) Key {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return Key{}
	}
	return Key{s: &keyText{text: secret}}
}

// Reveal returns the secret itself. Call it only where the key leaves the
// process for the provider (the Authorization header) or is compared
// against text to redact; never to print, log or store it.
func (k Key) Reveal() string {
	if k.s == nil {
		return ""
	}
	return k.s.text
}

// Empty reports whether the Key holds no secret, so a caller can refuse a
// request before any work is done.
func (k Key) Empty() bool { return k.Reveal() == "" }

// String returns "[redacted]" so that %v, %s and string concatenation
// through fmt never print the secret.
func (k Key) String() string { return redacted }

// GoString returns "[redacted]" so that %#v never prints the secret.
func (k Key) GoString() string { return redacted }

// Format writes "[redacted]" for every verb (%v, %+v, %#v, %s, %x, ...),
// quoted for %q, so no formatting verb can reach the secret.
func (k Key) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = f.Write([]byte(strconv.Quote(redacted)))
		return
	}
	_, _ = f.Write([]byte(redacted))
}

// LogValue makes log/slog record "[redacted]" for a Key attribute, with
// every handler (text, JSON or a third party's).
func (k Key) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON encodes the Key as the string "[redacted]", so a struct that
// carries a Key can be logged or returned as JSON without leaking it.
func (k Key) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText encodes the Key as "[redacted]" for text encoders (JSON map
// keys, XML, flag and env printers).
func (k Key) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// ErrKeyNotDecodable is returned when something tries to decode a Key from
// JSON or text: a key arrives only through NewKey, from the request that
// carries it, and is never read back from stored or encoded data.
var ErrKeyNotDecodable = errors.New("llm: a provider key is never decoded; use NewKey")

// UnmarshalJSON refuses with ErrKeyNotDecodable (see there for why).
func (k *Key) UnmarshalJSON([]byte) error { return ErrKeyNotDecodable }

// UnmarshalText refuses with ErrKeyNotDecodable (see there for why).
func (k *Key) UnmarshalText([]byte) error { return ErrKeyNotDecodable }
