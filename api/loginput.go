package api

import (
	"context"
	"strings"

	"github.com/eligo/eligo/api/redact"
)

// LogFailure logs a server-side failure at ERROR without the caller's
// input: ref is replaced by <ref> in the error's text (errors name what
// they failed on), and the reference itself goes, sized, on an INFO line
// with the same request id, so an operator can still find it.
func LogFailure(ctx context.Context, msg, ref string, err error) {
	text := err.Error()
	if ref != "" {
		text = strings.ReplaceAll(text, ref, "<ref>")
	}
	Log(ctx).ErrorContext(ctx, msg, "error", redact.ForLog(text))
	if ref != "" {
		Log(ctx).InfoContext(ctx, msg+": the reference", "ref", redact.ForLog(ref))
	}
}
