package catalog

import "regexp"

// MaxSlugLength bounds a slug; the spec gives only its pattern.
const MaxSlugLength = 200

// slugPattern is the spec's slug pattern.
var slugPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$`)

// ValidSlug reports whether slug has the spec's form
// (<namespace>/<name>[/<name>...], lower case) and fits MaxSlugLength: the
// rule for references a publish may take and a catalogue filter may name.
func ValidSlug(slug string) bool {
	return len(slug) <= MaxSlugLength && slugPattern.MatchString(slug)
}
