package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/eligo/eligo/api/redact"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/store"
)

// ViewerOf is the catalog viewer of the request in ctx: the tenant of its
// principal, or the anonymous viewer.
func ViewerOf(ctx context.Context) catalog.Viewer {
	p, _ := auth.PrincipalFrom(ctx)
	return catalog.Viewer{TenantID: p.TenantID}
}

// LookupFailed maps a catalog (or publish) error for the object ref names
// to its answer (docs/api.md#keys-and-access):
//
//   - catalog.ErrNotFound: the 404 with a plain string detail naming what
//     (e.g. "Ruleset"), identical whether the object is missing or private
//     to another tenant or to an anonymous caller. But a key presented on
//     the open surface that could not be used earns its own 401 or 403
//     (docs/api.md#keys-and-access), whether or not ref exists, so the
//     caller learns why their key did not reach their own private object
//     and nobody learns of another tenant's. When a slug the caller may see
//     is close to ref, the detail ends "Did you mean "<slug>"?"
//     (catalog.NotFoundError: computed alike for every not-found lookup,
//     so it tells nothing of objects the caller cannot see).
//   - catalog.ErrCorrupt: 422 ruleset_record_corrupt, with the cause logged.
//   - catalog.ErrReleaseMissing: 422 rulebook_release_missing (the head
//     names a release this server does not hold; the latest is never
//     served instead).
//   - catalog.ErrReleaseCorrupt: 422 rulebook_release_corrupt, the cause
//     logged.
//   - catalog.ErrMemberUnresolved: 422 release_member_unresolved, naming the
//     member and why.
//   - the database unreachable (store.Unavailable): 503
//     database_unavailable, Retry-After 1;
//   - anything else: the opaque 500, with the cause logged.
func LookupFailed(ctx context.Context, err error, what, ref string) error {
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		if refusal := presentedKeyRefusal(ctx); refusal != nil {
			return refusal
		}
		message := what + " " + quoted(ref) + " not found."
		if nearest := catalog.SuggestionFor(ctx, err); nearest != "" {
			message += " Did you mean " + quoted(nearest) + "?"
		}
		return NotFound(message)
	case errors.Is(err, catalog.ErrReleaseMissing):
		LogFailure(ctx, "rulebook head", ref, err)
		return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonRulebookReleaseMissing,
			"The rulebook's current release is not held by this server; the latest release is never served instead. Pass an explicit release_id, or activate the rulebook again.")
	case errors.Is(err, catalog.ErrReleaseCorrupt):
		LogFailure(ctx, "rulebook release", ref, err)
		return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonRulebookReleaseCorrupt,
			"The release's frozen content fails its identity check, so it is not served.")
	case errors.Is(err, catalog.ErrRulebookEmpty):
		return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonRulebookEmpty,
			"The rulebook has no sections yet, so there is nothing to decide or compare: add its ruleset_refs (PATCH /rulebooks/{rulebook_id}) first.")
	case errors.Is(err, catalog.ErrMemberUnresolved):
		var member *catalog.MemberError
		msg := "A member of the rulebook could not be resolved."
		if errors.As(err, &member) {
			msg = "A member of the rulebook could not be resolved: " + member.Error() + "."
		}
		return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonReleaseMemberUnresolved, msg)
	case errors.Is(err, catalog.ErrCorrupt):
		LogFailure(ctx, "load stored record", ref, err)
		return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonRulesetRecordCorrupt,
			"The stored ruleset could not be loaded. Republish it.")
	default:
		if gone := clientGone(ctx); gone != nil {
			return gone
		}
		if store.Unavailable(err) {
			// The reference was not in the caches and the database
			// cannot be reached: transient, not the server's fault to
			// report as a 500.
			Log(ctx).WarnContext(ctx, "resolve "+what+": database unavailable", "error", redact.ForLog(err.Error()))
			return ErrDatabaseUnavailable
		}
		LogFailure(ctx, "resolve "+what, ref, err)
		return Internal()
	}
}
