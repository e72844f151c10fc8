package catalog

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxSlugLength bounds a slug, which docs/api.md#rulesets gives with its pattern.
const MaxSlugLength = 200

// slugPattern is the slug pattern of docs/api.md#rulesets.
var slugPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$`)

// ValidSlug reports whether slug has the documented form (docs/api.md#rulesets)
// (<namespace>/<name>[/<name>...], lower case) and fits MaxSlugLength: the
// rule for references a publish may take and a catalogue filter may name.
func ValidSlug(slug string) bool {
	return len(slug) <= MaxSlugLength && slugPattern.MatchString(slug)
}

// maxRefLength bounds a reference worth looking up: longer than any slug,
// id or label the service issues.
const maxRefLength = 300

// lookable reports whether ref could name anything: valid UTF-8, no NUL
// (PostgreSQL refuses the byte in text), and not absurdly long. Anything
// else names nothing, so it is not sent to the database and is simply not
// found, never an error.
func lookable(ref string) bool {
	return ref != "" && len(ref) <= maxRefLength && utf8.ValidString(ref) && !strings.ContainsRune(ref, 0)
}
