package api

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/eligo/eligo/catalog"
)

// Keyset paging over slugs, shared by the ruleset and rulebook lists: the
// cursor resumes after a slug, so it stays valid while entries come and go.

// EncodeCursor makes the opaque cursor that resumes the catalogue after
// slug: base64url of "slug:" + slug.
func EncodeCursor(slug string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("slug:" + slug))
}

// DecodeCursor reads a cursor EncodeCursor made; empty is the start.
func DecodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", err
	}
	slug, ok := strings.CutPrefix(string(raw), "slug:")
	if !ok || !catalog.ValidSlug(slug) {
		return "", errors.New("malformed cursor")
	}
	return slug, nil
}
