package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// VerifySources checks every quote of r against the text of the source it
// cites by engine's one quote rule (SourceText.Contains: white space
// forgiven, nothing else — no stemming, case folding or fuzzy matching, as
// docs/language.md#quotes states), the rule authoring verifies drafts by. texts maps source ids
// to the bytes of their text. It returns, for each cited source, the digest
// of its text and the time of the check, and one sentence per quote that
// could not be verified: a cited source without text, or a quote its text
// does not contain.
func VerifySources(r *engine.Ruleset, texts map[string][]byte, now time.Time) (map[string]store.SourceCheck, []string) {
	normalised := map[string]*engine.SourceText{}
	var problems []string
	for _, ci := range r.CitedQuotes() {
		body, seen := normalised[ci.Source]
		if !seen {
			text, ok := texts[ci.Source]
			if !ok {
				problems = append(problems, fmt.Sprintf("source %s: no text was supplied to verify its quotes against", ci.Source))
				normalised[ci.Source] = nil
				continue
			}
			body = engine.NewSourceText(string(text))
			normalised[ci.Source] = body
		}
		if body != nil && !body.Contains(ci.Quote) {
			problems = append(problems, fmt.Sprintf("%s %s: the quote %q does not appear in the text of source %s", ci.Kind, ci.ID, ci.Quote, ci.Source))
		}
	}
	checks := map[string]store.SourceCheck{}
	for id := range normalised {
		if text, ok := texts[id]; ok {
			sum := sha256.Sum256(text)
			checks[id] = store.SourceCheck{ContentDigest: "sha256:" + hex.EncodeToString(sum[:]), VerifiedAt: now.UTC()}
		}
	}
	slices.Sort(problems)
	problems = slices.Compact(problems)
	return checks, problems
}
