package auth

import (
	"context"
	"slices"
)

// Principal is the authenticated caller of one request: the tenant a valid
// key acts for, and what that key may do. Handlers read it with
// PrincipalFrom; they never look at the key themselves.
type Principal struct {
	// TenantID is the tenant whose objects the caller may see and change.
	TenantID string
	// KeyID is the database id of the key used.
	KeyID int64
	// KeyPrefix is the public prefix of the key used, safe to log.
	KeyPrefix string
	// Scopes are the permissions the key carries.
	Scopes []Scope
	// Tier selects the caller's metering budgets.
	Tier Tier
}

// Has reports whether the principal's key carries scope s.
func (p Principal) Has(s Scope) bool {
	return slices.Contains(p.Scopes, s)
}

// Missing returns the scopes of want that the principal's key lacks, in the
// order given.
func (p Principal) Missing(want []Scope) []Scope {
	var missing []Scope
	for _, s := range want {
		if !p.Has(s) {
			missing = append(missing, s)
		}
	}
	return missing
}

type principalKey struct{}

// WithPrincipal returns a context carrying p; the API's auth middleware calls
// it once per request after checking the key against the route's scopes.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the request's principal. ok is false for an
// anonymous caller: no key, or (on the open surface) a key that was ignored.
func PrincipalFrom(ctx context.Context) (p Principal, ok bool) {
	p, ok = ctx.Value(principalKey{}).(Principal)
	return p, ok
}
