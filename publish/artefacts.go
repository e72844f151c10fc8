package publish

import (
	"context"
	"fmt"
	"strings"

	"github.com/eligo/eligo/store"
)

// checkRulebookPublic is the artefact-visibility rule for rulebooks: a
// rulebook that composes a cut citing project artefacts is never public,
// since its explain and /decide explanations would show the cut's
// confidential quotes and project and source ids to other tenants. It
// refuses (ErrArtefactPublic) a write w, worked out from read, that would
// leave the rulebook public while a member of the draft it leaves, or of
// any release it has published (a release stays readable by its id),
// cites artefacts. A write that leaves it private always passes, so a
// rulebook public from before the rule can still be made private.
func (p *Publisher) checkRulebookPublic(ctx context.Context, read store.Rulebook, w store.RulebookWrite) error {
	after := read
	if w.Draft != nil {
		after = *w.Draft
	}
	if after.Visibility != store.VisibilityPublic {
		return nil
	}
	members := make([]string, len(after.Refs))
	for i, r := range after.Refs {
		members[i] = r.LiveRulesetID
	}
	cited, err := p.store.RulebookArtefactMembers(ctx, read.ID, members)
	if err != nil {
		return err
	}
	if len(cited) > 0 {
		return &RefusedError{Stage: "artefact_visibility", Reason: ErrArtefactPublic, Message: fmt.Sprintf(
			"the rulebook composes rulesets citing project artefacts (%s), which are never public; keep the rulebook private",
			strings.Join(cited, ", "))}
	}
	return nil
}
