package authoring

import (
	"context"

	"github.com/eligo/eligo/engine/syntax"
)

// ReasonRulesUnparsable: a rules text given to be formatted does not parse
// (422), with its compile errors.
const ReasonRulesUnparsable = "rules_do_not_parse"

// FormattedRules is a rules text in the canonical layout `eligo fmt` prints.
type FormattedRules struct {
	// Rules is the canonical text.
	Rules string `json:"rules" doc:"The text in the canonical layout eligo fmt prints."`
	// Changed is false when the text given was already canonical, so an
	// editor knows whether replacing its buffer would change anything.
	Changed bool `json:"changed" doc:"Whether the canonical text differs from the text sent."`
}

// Format prints text, a rules text of project projectID (not necessarily
// its saved draft), in the canonical layout, exactly as `eligo fmt` does:
// syntax.Print over the parsed file, comments kept. A text that does not
// parse is refused with ReasonRulesUnparsable and its compile errors in
// the `compile_errors` member, as a draft that does not compile is; a
// project the tenant does not hold is ErrNotFound.
func (s *Drafts) Format(ctx context.Context, tenantID, projectID, text string) (FormattedRules, error) {
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return FormattedRules{}, err
	}
	f, errs := syntax.Parse("draft.rules", []byte(text))
	if len(errs) > 0 {
		return FormattedRules{}, &RefusedError{Kind: Unprocessable, Reason: ReasonRulesUnparsable,
			Detail:  map[string]any{"compile_errors": compileMessages(errs)},
			Message: "The rules text does not parse, so it has no canonical form: " + errs[0].Error()}
	}
	out := string(syntax.Print(f))
	return FormattedRules{Rules: out, Changed: out != text}, nil
}
