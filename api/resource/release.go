package resource

import (
	"time"

	"github.com/eligo/eligo/store"
)

// Release is a release on the wire (docs/api.md#releases): an immutable, labelled
// publication of a rulebook, as /decide and the rulebook operations show
// it.
type Release struct {
	// ReleaseID is the release's UUID.
	ReleaseID string `json:"release_id" format:"uuid" doc:"The release's UUID."`
	// Label is the permanent two-word label.
	Label string `json:"label" doc:"Permanent two-word label, unique within the rulebook, never reused; accepted wherever a release_id is."`
	// Title is the rulebook's name when published.
	Title string `json:"title"`
	// Version counts the rulebook's releases from 1.
	Version int `json:"version" doc:"Sequence number; a decision from this release reports ruleset_version v<version>."`
	// PublishedAt is when it was published.
	PublishedAt time.Time `json:"published_at"`
	// ContentIdentity digests the frozen content.
	ContentIdentity string `json:"content_identity" doc:"sha256:<hex> of the RFC 8785 form of the frozen content (outcome tree, member ruleset ids and digests, field overlay, robot hints); identical content reuses its release."`
}

// ReleaseOf is r on the wire; nil for nil.
func ReleaseOf(r *store.Release) *Release {
	if r == nil {
		return nil
	}
	return &Release{ReleaseID: r.ID, Label: r.Label, Title: r.Title, Version: r.Version, PublishedAt: r.PublishedAt,
		ContentIdentity: r.ContentIdentity}
}
