package api

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLoggedInput bounds the caller-supplied text a log line may carry: a
// reference or a value quoted in an error. A caller who sends a 2 MB slug
// costs the log one line of ordinary length, not two megabytes.
const MaxLoggedInput = 200

// LoggedInput is s as a log line may carry it: valid UTF-8 and at most
// MaxLoggedInput bytes, a longer s cut at a character boundary with its
// full length noted.
func LoggedInput(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return cutInput(s, len(s))
}

// cutInput is the opening of a text of total bytes, s (valid UTF-8, at
// least the first MaxLoggedInput bytes of the text, or all of it), as
// LoggedInput shows it: whole when total fits, else cut at a character
// boundary with total noted. A caller holding a long text passes only its
// opening, so the cost does not grow with the text.
func cutInput(s string, total int) string {
	if total <= MaxLoggedInput && len(s) <= MaxLoggedInput {
		return s
	}
	cut := min(MaxLoggedInput, len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], total)
}

// LogFailure logs a server-side failure at ERROR without the caller's
// input: ref is replaced by <ref> in the error's text (errors name what
// they failed on), and the reference itself goes, sized, on an INFO line
// with the same request id, so an operator can still find it.
func LogFailure(ctx context.Context, msg, ref string, err error) {
	text := err.Error()
	if ref != "" {
		text = strings.ReplaceAll(text, ref, "<ref>")
	}
	Log(ctx).ErrorContext(ctx, msg, "error", LoggedInput(text))
	if ref != "" {
		Log(ctx).InfoContext(ctx, msg+": the reference", "ref", LoggedInput(ref))
	}
}
