package catalog

import "errors"

// Sentinel errors of the catalog. Callers branch with errors.Is; the
// errors returned wrap them with the reference and the cause.
var (
	// ErrNotFound: nothing the viewer may see has that reference. It
	// covers an unknown reference, another tenant's private cut, a private
	// cut asked for anonymously and a slug whose cut is archived, so the
	// answer tells nobody about objects they cannot see.
	ErrNotFound = errors.New("not found")
	// ErrCorrupt: the stored record cannot be served: its IR does not load
	// or does not hash to its content digest, or its source text does not
	// match its source digest. Nothing of it may be served; republishing
	// the content repairs it.
	ErrCorrupt = errors.New("stored record corrupt")
)
