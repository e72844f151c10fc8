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
	if len(s) <= MaxLoggedInput {
		return s
	}
	cut := MaxLoggedInput
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
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
