// Package redact cuts what a caller sent down to what may be sent back or
// logged: a secret never (a provider key is never stored, logged or
// echoed; an API key pasted into a text shows only its public prefix),
// and a long input only as its opening with its size noted, so that a
// refused 5 MB body costs its answer and its log line a few hundred
// bytes. The 422 validation items echo their input through Echo; log
// lines carry caller text through ForLog.
package redact

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/engine"
)

// A 422 validation item echoes the offending input, as pydantic does, so a
// caller can see what was refused. The echo is cut down before it leaves:
// a secret is never sent back (a provider key is never stored,
// logged or echoed: docs/authoring.md#generation-with-your-model), and a long input costs the answer a few hundred bytes,
// not its own size (a 5 MB guidance text is not returned to its sender).
const (
	// MaxEchoedString is the most bytes of one string an echo keeps; a
	// longer one is cut at a character boundary and its length noted, as
	// ForLog does (the same bound as a log line's input).
	MaxEchoedString = MaxLogged
	// MaxEchoedMembers is the most members of one object or items of one
	// array an echo shows; a larger one is summarised as its size. Every
	// request body the API documents has fewer members per object.
	MaxEchoedMembers = 20
	// MaxEchoedDepth is how deep an echo descends into objects and
	// arrays; deeper values are summarised. The input of an item is the
	// offending value or, for a missing member, its parent, so two levels
	// show what is needed.
	MaxEchoedDepth = 3
	// MaxEchoedBytes bounds the strings of one item's echo together: past
	// it, further values are summarised, so one item's echo stays within
	// a few kilobytes however the input is shaped.
	MaxEchoedBytes = 2048
)

// Redacted replaces a secret in an echo.
const Redacted = auth.Redacted

// secretMembers are the names of request members that carry credentials,
// as foldName spells them: the provider key of the generation calls and
// any API key sent in a body.
var secretMembers = []string{"providerkey", "xproviderkey", "apikey", "xapikey", "key", "secret", "password", "token", "authorization"}

// secretWords are the secret names that make any member whose name holds
// them a secret one (clientsecret, provider_keyy, my_api_key), and
// misspeltSecrets those a near miss of which is one too (providerkye):
// long, distinctive names, so that an ordinary member (keywords,
// sections, max_tokens) is never taken for a credential.
var (
	secretWords     = []string{"providerkey", "apikey", "secret", "password", "authorization"}
	misspeltSecrets = []string{"providerkey", "xproviderkey", "apikey", "xapikey"}
)

// isSecretMember reports whether a member called name holds a credential:
// its name, compared as the JSON decoder compares member names (without
// case, so Provider_Key and provider_key are one member) and without "-"
// or "_", is a secret name, holds a secret word, or is what the 422 would
// call a misspelling of one (engine.Nearest, the suggestion of
// suggestMembers). Values are judged by their look as well
// (auth.RedactSecrets), whatever the member is called.
func isSecretMember(name string) bool {
	folded := foldName(name)
	if slices.Contains(secretMembers, folded) || engine.Nearest(folded, misspeltSecrets) != "" {
		return true
	}
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(folded, w) })
}

// foldName spells a member name as isSecretMember compares it: "-" and
// "_" dropped, and every letter folded as encoding/json folds member names
// (which also takes the Kelvin sign for k and the long s for s), then
// lower-cased.
func foldName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '-' || r == '_' {
			continue
		}
		b.WriteRune(unicode.ToLower(unicode.ToUpper(unicode.ToLower(r))))
	}
	return b.String()
}

// Echo is the input of a validation item at loc as it may be sent
// back: redacted when loc names a secret member, else echoedValue's cut.
func Echo(loc []any, input any) any {
	for _, part := range loc {
		if name, ok := part.(string); ok && isSecretMember(name) {
			if input == nil {
				return nil
			}
			return Redacted
		}
	}
	budget := MaxEchoedBytes
	return echoedValue(input, 0, &budget)
}

// echoedValue cuts v (a decoded JSON value) for an echo: secret members
// redacted at every depth, credentials redacted inside strings by their
// look (auth.RedactSecrets: an Eligo API key keeps its prefix), long
// strings cut, large or deep objects and arrays and anything past the
// byte budget summarised as a string saying what was there.
func echoedValue(v any, depth int, budget *int) any {
	switch v := v.(type) {
	case string:
		return echoedString(v, len(v), budget)
	case json.RawMessage:
		// JSON text not decoded (a body refused before it was): cut as
		// it is read, so that nothing past an echo's bounds is decoded.
		return echoedRaw(v, depth, budget)
	case map[string]any:
		if depth >= MaxEchoedDepth || len(v) > MaxEchoedMembers || *budget <= 0 {
			return fmt.Sprintf("(an object of %d members)", len(v))
		}
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		slices.Sort(names) // the budget runs out at the same member every time
		out := make(map[string]any, len(v))
		for _, name := range names {
			if isSecretMember(name) {
				out[name] = Redacted
				continue
			}
			*budget -= len(name)
			out[name] = echoedValue(v[name], depth+1, budget)
		}
		return out
	case []any:
		if depth >= MaxEchoedDepth || len(v) > MaxEchoedMembers || *budget <= 0 {
			return fmt.Sprintf("(an array of %d items)", len(v))
		}
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = echoedValue(item, depth+1, budget)
		}
		return out
	}
	return v
}

// echoedString is the echo of a string of total bytes whose opening (at
// least its first MaxEchoedString+auth.KeyLength bytes, or all of it) is
// s.
func echoedString(s string, total int, budget *int) any {
	if *budget <= 0 {
		return fmt.Sprintf("(a string of %d bytes)", total)
	}
	// Nothing past the opening is echoed: only it is read, with room
	// for a key that starts inside it, so a 5 MB text costs what a
	// 256-byte one does.
	s = s[:min(len(s), MaxEchoedString+auth.KeyLength)]
	s = cutInput(strings.ToValidUTF8(auth.RedactSecrets(s), "\uFFFD"), total)
	*budget -= len(s)
	return s
}
