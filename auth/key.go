package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/store"
)

// An API key reads elg_<prefix>_<secret>: prefix is 8 lower-case letters or
// digits, public, shown in listings and used to find the stored row; secret
// is 32 random bytes (256 bits) in unpadded base64url. Only the SHA-256 of
// the whole text is stored.
const (
	keyMarker     = "elg"
	prefixLen     = 8
	secretBytes   = 32
	prefixLetters = "abcdefghijklmnopqrstuvwxyz0123456789"
)

var secretEncoding = base64.RawURLEncoding

// Errors a presented key can fail with. Callers map them to the 401
// reason codes of docs/api.md#keys-and-access: ErrInvalidKey is invalid_api_key (unknown, malformed or
// revoked), ErrExpiredKey is api_key_expired.
var (
	ErrInvalidKey = errors.New("invalid api key")
	ErrExpiredKey = errors.New("api key expired")
)

// GeneratedKey is a freshly drawn key: the text to hand to its owner once,
// and what may be stored.
type GeneratedKey struct {
	// Text is the full key; show it once and never store it.
	Text string
	// Prefix is the public part, stored and listed.
	Prefix string
	// Hash is the SHA-256 of Text, the only stored form of the secret.
	Hash [sha256.Size]byte
}

// GenerateKey draws a new key from crypto/rand.
func GenerateKey() (GeneratedKey, error) {
	raw := make([]byte, prefixLen+secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return GeneratedKey{}, fmt.Errorf("generate key: %w", err)
	}
	var prefix strings.Builder
	for _, b := range raw[:prefixLen] {
		// 256 % 36 != 0 leaves a slight bias in the public prefix, which
		// carries no secret; the secret part is unbiased.
		prefix.WriteByte(prefixLetters[int(b)%len(prefixLetters)])
	}
	text := keyMarker + "_" + prefix.String() + "_" + secretEncoding.EncodeToString(raw[prefixLen:])
	return GeneratedKey{Text: text, Prefix: prefix.String(), Hash: sha256.Sum256([]byte(text))}, nil
}

// ParseKey splits presented key text into its public prefix and hash, or
// returns ErrInvalidKey when the text cannot be an Eligo key.
func ParseKey(text string) (prefix string, hash [sha256.Size]byte, err error) {
	marker, rest, ok := strings.Cut(text, "_")
	if !ok || marker != keyMarker {
		return "", hash, ErrInvalidKey
	}
	prefix, secret, ok := strings.Cut(rest, "_")
	if !ok || !validPrefix(prefix) {
		return "", hash, ErrInvalidKey
	}
	decoded, err := secretEncoding.DecodeString(secret)
	if err != nil || len(decoded) != secretBytes {
		return "", hash, ErrInvalidKey
	}
	return prefix, sha256.Sum256([]byte(text)), nil
}

// NormalizePrefix accepts a bare prefix ("k3x9a0bq") or the opening of a key
// ("elg_k3x9a0bq", or the whole key) and returns the bare prefix, so that
// `eligo keys revoke` takes whatever the operator has at hand.
func NormalizePrefix(s string) (string, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), keyMarker+"_")
	s, _, _ = strings.Cut(s, "_")
	if !validPrefix(s) {
		return "", fmt.Errorf("%q is not a key prefix (8 lower-case letters or digits)", s)
	}
	return s, nil
}

func validPrefix(p string) bool {
	if len(p) != prefixLen {
		return false
	}
	for i := 0; i < len(p); i++ {
		if !strings.ContainsRune(prefixLetters, rune(p[i])) {
			return false
		}
	}
	return true
}

// KeyRequest describes a key to issue.
type KeyRequest struct {
	// TenantID is the tenant the key acts for; it is created if new.
	TenantID string
	// Name is a free label for listings.
	Name string
	// Scopes are the permissions granted.
	Scopes []Scope
	// Tier is the metering tier.
	Tier Tier
	// ExpiresAt, when set, is the moment the key stops working.
	ExpiresAt *time.Time
}

// IssueKey draws a key, stores its hash and returns the key text (to show
// once) with the stored record. A prefix collision is retried with a fresh
// key.
func IssueKey(ctx context.Context, st *store.Store, req KeyRequest) (string, store.APIKey, bool, error) {
	scopes := ScopeNames(req.Scopes)
	for attempt := 0; ; attempt++ {
		gen, err := GenerateKey()
		if err != nil {
			return "", store.APIKey{}, false, err
		}
		rec, created, err := st.CreateAPIKey(ctx, store.NewAPIKey{
			TenantID: req.TenantID, Name: req.Name, Prefix: gen.Prefix, Hash: gen.Hash[:],
			Scopes: scopes, Tier: string(req.Tier), ExpiresAt: req.ExpiresAt,
		})
		if errors.Is(err, store.ErrDuplicatePrefix) && attempt < 3 {
			continue
		}
		if err != nil {
			return "", store.APIKey{}, false, err
		}
		return gen.Text, rec, created, nil
	}
}

// Authenticator turns presented key text into a Principal.
//
// Key rows are cached by prefix for a short time so that a busy key costs no
// database round trip per request. Hash, revocation and expiry are still
// judged on every request against the cached row. A revocation reaches
// every process at once through InvalidateKey (called by the process's
// listener of store.InvalidationChannel); the cache TTL bounds how long a
// revocation can go unseen should a notification be lost. Unknown
// prefixes are cached too, for the same TTL, in a cache of their own
// bounded like the rows' (so guessing neither fills memory nor pushes out
// a real key's row): a repeated unknown prefix then costs what a repeated
// known one does, a cache hit and a constant-time comparison, and the
// time of a refusal does not tell which it was.
//
// While the database cannot be reached, a key whose row was read within
// store.OutageWindow is still judged against that row (store.RowCache),
// so that callers seen recently keep being served through an outage (a
// key never seen, or not seen within the window, is refused as before).
// Revocations made before the outage still hold: a revoked row is
// refused, and a revocation notification drops the key from the cache.
// Only a revocation whose notification was lost, made within the window
// before the outage, can go unseen until the database answers again.
type Authenticator struct {
	// store reads key rows and records their last use.
	store *store.Store
	// now is the clock expiry is judged by; never nil.
	now func() time.Time
	// rows holds key rows by prefix for the cache TTL, and for an outage;
	// nil when the TTL is 0, and then every request reads the database.
	rows *store.RowCache[store.APIKey]
	// absent holds, for the cache TTL, the prefixes the database has no
	// key for, so that a repeated unknown prefix is answered from memory
	// as a repeated known one is; nil with rows. It is a cache of its own
	// (bounded like rows), so guessed prefixes never push a real key's row
	// out.
	absent *store.RowCache[struct{}]
	// failuresByAddress and attemptsByPrefix are the sign-in limits
	// (SignIn, docs/console.md#sign-in-limits).
	failuresByAddress, attemptsByPrefix *AttemptLimiter
}

// keyCacheSize bounds the number of key rows an Authenticator keeps.
const keyCacheSize = 10_000

// NewAuthenticator checks keys against st; now is the clock used for expiry
// (the system clock when nil); cacheTTL is how long a key row is reused before it is
// read again (0 reads it on every request, and keeps no row for an outage
// either).
func NewAuthenticator(st *store.Store, now func() time.Time, cacheTTL time.Duration) *Authenticator {
	if now == nil {
		now = clock.System{}.Now
	}
	a := &Authenticator{store: st, now: now,
		failuresByAddress: NewAttemptLimiter(SignInFailuresPerAddress, SignInWindow),
		attemptsByPrefix:  NewAttemptLimiter(SignInAttemptsPerPrefix, SignInWindow)}
	if cacheTTL > 0 {
		a.rows = store.NewRowCache[store.APIKey](keyCacheSize, cacheTTL)
		a.absent = store.NewRowCache[struct{}](keyCacheSize, cacheTTL)
	}
	return a
}

// lookup returns the stored row of prefix, from the cache when it is fresh
// (or, through an outage, recent). A row read from the database also gets
// its last-used time recorded.
func (a *Authenticator) lookup(ctx context.Context, prefix string) (store.APIKey, error) {
	if a.rows == nil {
		return a.read(ctx, prefix)
	}
	// Both caches are read whatever the first answers, so that a known
	// prefix and an unknown one cost the same two reads.
	rec, known := a.rows.Get(prefix)
	_, absent := a.absent.Get(prefix)
	if known {
		return rec, nil
	}
	if absent {
		return store.APIKey{}, store.ErrNotFound
	}
	rec, _, err := a.rows.Read(ctx, prefix, func(ctx context.Context) (store.APIKey, error) { return a.read(ctx, prefix) })
	if errors.Is(err, store.ErrNotFound) {
		// The miss is remembered in absent (RowCache keeps no misses).
		_, _, _ = a.absent.Read(ctx, prefix, func(context.Context) (struct{}, error) { return struct{}{}, nil })
	}
	return rec, err
}

// read reads the row of prefix from the database and records its use.
func (a *Authenticator) read(ctx context.Context, prefix string) (store.APIKey, error) {
	rec, err := a.store.APIKeyByPrefix(ctx, prefix)
	if err != nil {
		return store.APIKey{}, err
	}
	if rec.RevokedAt == nil && (rec.LastUsedAt == nil || a.now().Sub(*rec.LastUsedAt) >= store.LastUsedResolution) {
		if err := a.store.TouchAPIKey(ctx, rec.ID); err != nil {
			return store.APIKey{}, err
		}
	}
	return rec, nil
}

// InvalidateKey drops the cached row of the key with this public prefix,
// so the next request presenting the key reads it again: how a revocation
// made by any process takes effect here at once rather than after the
// cache TTL.
func (a *Authenticator) InvalidateKey(prefix string) {
	if a.rows != nil {
		a.rows.Remove(prefix)
		a.absent.Remove(prefix)
	}
}

// InvalidateKeys drops every cached key row, for when revocations may
// have been missed (the invalidation listener reconnected).
func (a *Authenticator) InvalidateKeys() {
	if a.rows != nil {
		a.rows.Purge()
		a.absent.Purge()
	}
}

// Authenticate verifies key text. It returns ErrInvalidKey for malformed,
// unknown or revoked keys and ErrExpiredKey for keys past expiry; any other
// error is the database's. Hashes are compared in constant time.
func (a *Authenticator) Authenticate(ctx context.Context, text string) (Principal, error) {
	p, _, err := a.authenticate(ctx, text)
	return p, err
}

// authenticate is Authenticate, also returning the key's row (for a
// session, which reports the key's expiry).
func (a *Authenticator) authenticate(ctx context.Context, text string) (Principal, store.APIKey, error) {
	prefix, hash, err := ParseKey(text)
	if err != nil {
		return Principal{}, store.APIKey{}, err
	}
	rec, err := a.key(ctx, prefix)
	if err != nil {
		return Principal{}, store.APIKey{}, err
	}
	if subtle.ConstantTimeCompare(rec.Hash, hash[:]) != 1 {
		return Principal{}, store.APIKey{}, ErrInvalidKey
	}
	p, err := a.judge(rec)
	return p, rec, err
}

// key returns the row of the key with this prefix through the cache
// (lookup); ErrInvalidKey when there is none.
func (a *Authenticator) key(ctx context.Context, prefix string) (store.APIKey, error) {
	rec, err := a.lookup(ctx, prefix)
	if errors.Is(err, store.ErrNotFound) {
		return store.APIKey{}, ErrInvalidKey
	}
	if err != nil {
		return store.APIKey{}, fmt.Errorf("authenticate: %w", err)
	}
	return rec, nil
}

// judge turns a key's row into the Principal it grants, or the error a
// revoked (ErrInvalidKey) or expired (ErrExpiredKey) key earns, by the
// authenticator's clock. Keys presented as text and console sessions are
// judged alike.
func (a *Authenticator) judge(rec store.APIKey) (Principal, error) {
	if rec.RevokedAt != nil {
		return Principal{}, ErrInvalidKey
	}
	if rec.ExpiresAt != nil && !a.now().Before(*rec.ExpiresAt) {
		return Principal{}, ErrExpiredKey
	}
	scopes := make([]Scope, len(rec.Scopes))
	for i, s := range rec.Scopes {
		scopes[i] = Scope(s)
	}
	return Principal{TenantID: rec.TenantID, KeyID: rec.ID, KeyPrefix: rec.Prefix, Scopes: scopes, Tier: Tier(rec.Tier)}, nil
}
