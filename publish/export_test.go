package publish

import (
	"context"

	"github.com/eligo/eligo/store"
)

// FailReleases makes every rulebook publication fail at its last step
// with err (nil restores it): the fault the release_publication_failed
// tests inject.
func (p *Publisher) FailReleases(err error) {
	if err == nil {
		p.releaseFault = nil
		return
	}
	p.releaseFault = func() error { return err }
}

// AllocateLabelsWith replaces the release label allocator.
func (p *Publisher) AllocateLabelsWith(allocate func(seed uint64, taken func(string) bool) (string, error)) {
	p.allocateLabel = allocate
}

// WriteFrom is writeRulebook: w, worked out from read.
func (p *Publisher) WriteFrom(ctx context.Context, read store.Rulebook, w store.RulebookWrite) (store.RulebookWritten, error) {
	return p.writeRulebook(ctx, read, w)
}
