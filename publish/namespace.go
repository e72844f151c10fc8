package publish

import (
	"errors"
	"fmt"

	"github.com/eligo/eligo/store"
)

// slugRefusal turns the store's refusal of a slug (err) into the refusal
// of the publish at stage: ErrNamespaceOwned when the slug's namespace is
// another tenant's, ErrSlugConflict when the slug is taken; nil for any
// other err. The namespace refusal names only the namespace, never
// whether the slug exists.
func slugRefusal(stage, slug string, err error) *RefusedError {
	switch {
	case errors.Is(err, store.ErrNamespaceOwned):
		return &RefusedError{Stage: stage, Reason: ErrNamespaceOwned, Message: fmt.Sprintf(
			"the namespace %q belongs to another tenant, the first to publish under it; publish under a namespace of your own",
			store.Namespace(slug))}
	case errors.Is(err, store.ErrSlugConflict):
		return &RefusedError{Stage: stage, Reason: ErrSlugConflict, Message: fmt.Sprintf(
			"the slug %q is taken; choose another slug", slug)}
	}
	return nil
}
