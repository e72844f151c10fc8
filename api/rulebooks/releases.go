package rulebooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
)

// registerReleases adds GET /rulebooks/{rulebook_id}/releases: the
// rulebook's release history, for its owner to see what was published
// when, under which label, and from which member cuts.
func registerReleases(s *api.Server, h *handler) {
	route := api.Route{OperationID: "list-rulebook-releases", Method: http.MethodGet, Path: "/rulebooks/{rulebook_id}/releases",
		Summary: "List a rulebook's releases",
		Description: "The rulebook's releases, newest first: each release's id, two-word label, title, version, publication time and content identity, " +
			"whether it is the current release, and the sections it froze (letter, section id, name, slug, the member cut's `ruleset_id` and its `ruleset_version` under its slug). " +
			"A bare JSON array; `X-Next-Cursor` carries the cursor of the next page while more may follow. " +
			"The history is the owner's: another tenant's rulebook is 404, public or not. " + rulebookIDDoc,
		Tags: []string{"Rulebooks"}, Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulebooksRead}, Class: api.ClassRulebooks, NotFound: notFound}
	api.Register(s, route, h.releases)
}

// versionCursor keys the release history, ordered by version from the
// newest: base64url of "ver:" + the version of the page's last release.
var versionCursor = resource.Cursor[int]{
	Kind:   "ver",
	Encode: strconv.Itoa,
	Decode: func(s string) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || strconv.Itoa(v) != s {
			return 0, errors.New("malformed cursor")
		}
		return v, nil
	},
}

// releaseSection is one section a release froze.
type releaseSection struct {
	Letter         string  `json:"letter" doc:"A, B, C... in order."`
	SectionID      string  `json:"section_id"`
	Name           *string `json:"name" doc:"The member's name when frozen; null on releases that did not capture it."`
	Slug           string  `json:"slug" doc:"The member cut's slug."`
	RulesetID      string  `json:"ruleset_id" doc:"The member cut the release froze."`
	RulesetVersion *string `json:"ruleset_version" doc:"v<N>, the cut's number under its slug; null when the store no longer holds the cut."`
	ContentDigest  string  `json:"content_digest"`
}

// releaseHistoryEntry is one release of the history.
type releaseHistoryEntry struct {
	resource.Release
	Current  bool             `json:"current" doc:"This is the rulebook's current release, the one /decide serves without release_id."`
	Sections []releaseSection `json:"sections" nullable:"false" doc:"The sections the release froze, in letter order."`
}

type releasesInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300" doc:"A rulebook id (rb_...) or its slug, with each / sent as %2F."`
	resource.PageQuery
}

type releasesOutput struct {
	resource.NextPage
	Body resource.List[releaseHistoryEntry]
}

func (h *handler) releases(ctx context.Context, in *releasesInput) (*releasesOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	rb, err := h.catalog.OwnedRulebook(ctx, p.TenantID, in.RulebookID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Rulebook", in.RulebookID)
	}
	entries, next, err := resource.ListPage(in.PageQuery, versionCursor, func(e releaseHistoryEntry) int { return e.Version },
		func(before, limit int) ([]releaseHistoryEntry, error) {
			rows, err := h.catalog.Releases(ctx, rb, before, limit)
			if err != nil {
				return nil, fmt.Errorf("release history of %s: %w", rb.ID, err)
			}
			out := make([]releaseHistoryEntry, len(rows))
			for i, row := range rows {
				e := releaseHistoryEntry{Release: *resource.ReleaseOf(&row.Release), Current: row.Release.ID == rb.CurrentReleaseID,
					Sections: make([]releaseSection, len(row.Content.Sections))}
				for j, s := range row.Content.Sections {
					e.Sections[j] = releaseSection{Letter: s.Letter, SectionID: s.SectionID, Name: s.Name, Slug: s.Slug,
						RulesetID: s.RulesetID, ContentDigest: s.ContentDigest}
					if v, ok := row.CutVersions[s.RulesetID]; ok {
						label := "v" + strconv.Itoa(v)
						e.Sections[j].RulesetVersion = &label
					}
				}
				out[i] = e
			}
			return out, nil
		})
	if err != nil {
		return nil, err
	}
	return &releasesOutput{NextPage: resource.NextPage{NextCursor: next}, Body: entries}, nil
}
