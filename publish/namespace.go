package publish

import (
	"errors"
	"fmt"

	"github.com/eligo/eligo/store"
)

// slugRefusal turns the store's refusal of a slug (err) into the refusal
// of the publish at stage: ErrNamespaceOwned when the slug's namespace is
// another tenant's, ErrNamespaceLimit when claiming it would pass the
// tenant's cap, ErrSlugConflict when the slug is taken; nil for any other
// err. The namespace refusal names only the namespace, never
// whether the slug exists.
func slugRefusal(stage, slug string, err error) *RefusedError {
	var limit *store.NamespaceLimitError
	switch {
	case errors.Is(err, store.ErrNamespaceOwned):
		return &RefusedError{Stage: stage, Reason: ErrNamespaceOwned, Message: fmt.Sprintf(
			"the namespace %q belongs to another tenant, the first to publish under it; publish under a namespace of your own",
			store.Namespace(slug))}
	case errors.As(err, &limit):
		return &RefusedError{Stage: stage, Reason: ErrNamespaceLimit, Message: fmt.Sprintf(
			"publishing under %q would claim a new namespace, and the tenant already owns %d, while its %s tier allows %d; publish under a namespace it owns, or ask an operator to release one (`eligo namespaces release`)",
			store.Namespace(slug), limit.Owned, limit.Tier, limit.Limit)}
	case errors.Is(err, store.ErrSlugConflict):
		return &RefusedError{Stage: stage, Reason: ErrSlugConflict, Message: fmt.Sprintf(
			"the slug %q is taken; choose another slug", slug)}
	}
	return nil
}
