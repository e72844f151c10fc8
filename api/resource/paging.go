package resource

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/catalog"
)

// Keyset paging, the one way every list of the API pages (the ruleset and
// rulebook catalogues, a tenant's projects): a list operation embeds
// PageQuery in its input and NextPage in its output, says how its rows are
// keyed with a Cursor, and calls ListPage. A cursor resumes after the last
// row of the page by that key, so it stays valid while rows come and go.

// DefaultPageSize is the page size when the request names none.
const DefaultPageSize = 50

// PageQuery is the query every list takes. Embed it (last, so the
// parameters keep their order) in a list operation's input.
type PageQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"50" doc:"Page size."`
	Cursor string `query:"cursor" maxLength:"400" doc:"The X-Next-Cursor header of the previous page."`
}

// NextPage is the header every list answers with. Embed it in a list
// operation's output and set it from ListPage.
type NextPage struct {
	NextCursor string `header:"X-Next-Cursor" doc:"Cursor of the next page; absent on the last page."`
}

// Cursor is how one list's rows are keyed for paging: a cursor is
// base64url of Kind + ":" + Encode(key), opaque to the caller.
type Cursor[K any] struct {
	// Kind names the list's key, so a cursor of one list is refused by
	// another ("slug", "prj").
	Kind string
	// Encode writes a row's key; Decode reads it back, refusing a key
	// Encode could not have written.
	Encode func(K) string
	Decode func(string) (K, error)
}

// SlugCursor keys the catalogues, which are ordered by slug: base64url of
// "slug:" + slug.
var SlugCursor = Cursor[string]{
	Kind:   "slug",
	Encode: func(slug string) string { return slug },
	Decode: func(slug string) (string, error) {
		if !catalog.ValidSlug(slug) {
			return "", errors.New("malformed cursor")
		}
		return slug, nil
	},
}

// Make returns the cursor that resumes after the row keyed k.
func (c Cursor[K]) Make(k K) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.Kind + ":" + c.Encode(k)))
}

// Read returns the key a cursor made by Make resumes after; the empty
// cursor is the start, the zero key.
func (c Cursor[K]) Read(cursor string) (K, error) {
	var zero K
	if cursor == "" {
		return zero, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return zero, err
	}
	key, ok := strings.CutPrefix(string(raw), c.Kind+":")
	if !ok {
		return zero, errors.New("malformed cursor")
	}
	return c.Decode(key)
}

// ListPage runs one page of a list. It reads q.Cursor (one this service
// did not issue is a 422 naming query.cursor), asks fetch for one row more
// than the page size after that key, to learn whether another page
// follows, and returns the page's rows and the cursor of the next page
// ("" on the last). A page may hold fewer rows than asked for and still
// not be the last when the caller drops some (see the ruleset list).
func ListPage[K, R any](q PageQuery, c Cursor[K], key func(R) K, fetch func(after K, limit int) ([]R, error)) ([]R, string, error) {
	after, err := c.Read(q.Cursor)
	if err != nil {
		return nil, "", api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"query", "cursor"},
			Msg: "Value error, not a cursor this service issued", Input: q.Cursor})
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultPageSize
	}
	rows, err := fetch(after, limit+1)
	if err != nil {
		return nil, "", err
	}
	if len(rows) <= limit {
		return rows, "", nil
	}
	rows = rows[:limit]
	return rows, c.Make(key(rows[len(rows)-1])), nil
}

// List is a list operation's body: always a JSON array, empty when
// nothing matches, never null. Build it non-nil.
type List[T any] []T

// TransformSchema marks the array non-nullable: huma makes arrays nullable
// by default, and a top-level body has no field tag to say otherwise.
func (List[T]) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	s.Nullable = false
	return s
}
