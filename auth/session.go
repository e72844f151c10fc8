package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/eligo/eligo/store"
)

// Console sessions (docs/console.md#signing-in-console-sessions): the web console signs
// in by exchanging an API key for a session, so that no key is ever kept
// in the browser. The browser holds only the session id, 32 random bytes
// in an HttpOnly cookie; the database holds only its SHA-256. A session
// acts as its key: on every request it is resolved to the key's row
// through the same cache as a presented key (lookup), so a revocation
// made by any process (InvalidateKey) ends the session here at once, and
// the key's expiry ends it too.
const (
	// SessionIdle ends a session that authenticated nothing for this long.
	SessionIdle = 30 * time.Minute
	// SessionLifetime ends a session this long after sign-in, however
	// busy it is.
	SessionLifetime = 12 * time.Hour
	// SessionSeenResolution is how stale a session's last-seen time may
	// get: it is written at most once per this, not on every request, so
	// the idle end is judged to within it.
	SessionSeenResolution = time.Minute
	// sessionIDBytes is the session id's length before encoding.
	sessionIDBytes = 32
)

// ErrNoSession is returned for a session id that names no live session:
// malformed, unknown, signed out, idle too long or past its lifetime.
var ErrNoSession = errors.New("no console session")

// Session is a resolved console session: who it acts as and when it ends.
type Session struct {
	// Principal is the key's, exactly as a request presenting the key
	// gets: the same tenant, scopes, tier and metering subject.
	Principal Principal
	// CSRFToken is the token requests authenticated by the session must
	// carry in a header (see CSRFToken).
	CSRFToken string
	// IdleExpiresAt is when the session ends unless it is used again.
	IdleExpiresAt time.Time
	// ExpiresAt is when the session ends however busy it is.
	ExpiresAt time.Time
	// KeyExpiresAt is the key's own expiry, which ends the session too;
	// nil when the key never expires.
	KeyExpiresAt *time.Time
}

// sessionEncoding spells session ids and CSRF tokens.
var sessionEncoding = secretEncoding

// SignInLimitedError is SignIn's refusal of an attempt past the sign-in
// limits: the key was not looked at, and Wait is how long until the
// attempt would be allowed.
type SignInLimitedError struct {
	// Wait is how long until an attempt from the same address naming the
	// same prefix would be allowed.
	Wait time.Duration
}

func (e *SignInLimitedError) Error() string {
	return fmt.Sprintf("sign-in limited: retry in %s", e.Wait.Round(time.Second))
}

// SignIn verifies key text as Authenticate does and opens a session acting
// as that key. It returns the new session id, to set in the cookie and
// never store, and the session. A bad key fails with Authenticate's
// errors (ErrInvalidKey, ErrExpiredKey), and no session is opened. A key
// keeps at most MaxSessionsPerKey sessions: the new one ends its least
// recently used past that.
//
// from names the client (its address, an IPv6 address's /64): it may
// fail SignInFailuresPerAddress times at once, and any client may name
// one key prefix SignInAttemptsPerPrefix times at once, each refilled
// over SignInWindow. An attempt past either is refused with
// *SignInLimitedError before the key is looked at, so a refusal says
// nothing of the key.
func (a *Authenticator) SignIn(ctx context.Context, keyText, from string) (id string, s Session, err error) {
	now := a.now()
	if wait := a.failuresByAddress.Take(from, now); wait > 0 {
		return "", Session{}, &SignInLimitedError{Wait: wait}
	}
	if prefix, _, perr := ParseKey(keyText); perr == nil {
		if wait := a.attemptsByPrefix.Take(prefix, now); wait > 0 {
			a.failuresByAddress.Give(from) // not tried, so not a failure
			return "", Session{}, &SignInLimitedError{Wait: wait}
		}
	}
	id, s, err = a.signIn(ctx, keyText)
	if !errors.Is(err, ErrInvalidKey) && !errors.Is(err, ErrExpiredKey) {
		// Only a refused key counts against the address: a success, or
		// a database failure, is given back.
		a.failuresByAddress.Give(from)
	}
	return id, s, err
}

// signIn is SignIn past the limits.
func (a *Authenticator) signIn(ctx context.Context, keyText string) (id string, s Session, err error) {
	p, rec, err := a.authenticate(ctx, keyText)
	if err != nil {
		return "", Session{}, err
	}
	raw := make([]byte, sessionIDBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", Session{}, fmt.Errorf("sign in: draw session id: %w", err)
	}
	id = sessionEncoding.EncodeToString(raw)
	hash := sha256.Sum256([]byte(id))
	now := a.now()
	row := store.NewConsoleSession{IDHash: hash[:], TenantID: p.TenantID, APIKeyID: p.KeyID, CreatedAt: now, ExpiresAt: now.Add(SessionLifetime),
		MaxPerKey: MaxSessionsPerKey}
	if err := a.store.CreateConsoleSession(ctx, row); errors.Is(err, store.ErrNotFound) {
		// The key's row was deleted since it was read.
		return "", Session{}, ErrInvalidKey
	} else if err != nil {
		return "", Session{}, fmt.Errorf("sign in: %w", err)
	}
	return id, a.session(id, p, rec, now, row.ExpiresAt), nil
}

// ResolveSession returns the live session id names. It fails with
// ErrNoSession when there is none, with ErrInvalidKey when the session's
// key was revoked or deleted and ErrExpiredKey when it expired (both also
// end the session); any other error is the database's. A session used
// after SessionSeenResolution has its last-seen time moved, which keeps
// it from idling out.
func (a *Authenticator) ResolveSession(ctx context.Context, id string) (Session, error) {
	if raw, err := sessionEncoding.DecodeString(id); err != nil || len(raw) != sessionIDBytes {
		return Session{}, ErrNoSession
	}
	hash := sha256.Sum256([]byte(id))
	row, err := a.store.ConsoleSession(ctx, hash[:])
	if errors.Is(err, store.ErrNotFound) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("resolve session: %w", err)
	}
	now := a.now()
	if !now.Before(row.ExpiresAt) || !now.Before(row.LastSeenAt.Add(SessionIdle)) {
		return Session{}, a.end(ctx, hash[:], ErrNoSession)
	}
	rec, err := a.key(ctx, row.KeyPrefix)
	if err == nil && rec.ID != row.APIKeyID {
		// The prefix was reissued to another key after the session's
		// was deleted (the cascade removes the session; this is a race).
		err = ErrInvalidKey
	}
	var p Principal
	if err == nil {
		p, err = a.judge(rec)
	}
	if errors.Is(err, ErrInvalidKey) || errors.Is(err, ErrExpiredKey) {
		return Session{}, a.end(ctx, hash[:], err)
	}
	if err != nil {
		return Session{}, err
	}
	if now.Sub(row.LastSeenAt) >= SessionSeenResolution {
		if err := a.store.TouchConsoleSession(ctx, hash[:], now, SessionSeenResolution); err != nil {
			return Session{}, fmt.Errorf("resolve session: %w", err)
		}
		row.LastSeenAt = now
	}
	return a.session(id, p, rec, row.LastSeenAt, row.ExpiresAt), nil
}

// SignOut ends the session id names, if there is one.
func (a *Authenticator) SignOut(ctx context.Context, id string) error {
	hash := sha256.Sum256([]byte(id))
	if _, err := a.store.DeleteConsoleSession(ctx, hash[:]); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// end deletes an ended session's row and returns why it ended, or the
// database's error when the row could not be deleted.
func (a *Authenticator) end(ctx context.Context, hash []byte, why error) error {
	if _, err := a.store.DeleteConsoleSession(ctx, hash); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return why
}

// session assembles a Session from the key it acts as and its times.
func (a *Authenticator) session(id string, p Principal, rec store.APIKey, lastSeen, expires time.Time) Session {
	idle := lastSeen.Add(SessionIdle)
	if idle.After(expires) {
		idle = expires
	}
	return Session{Principal: p, CSRFToken: CSRFToken(id), IdleExpiresAt: idle, ExpiresAt: expires, KeyExpiresAt: rec.ExpiresAt}
}

// csrfContext separates the CSRF token's hash from the stored hash of the
// session id, so that neither can be worked out from the other.
const csrfContext = "eligo console csrf token\x00"

// CSRFToken is the anti-forgery token of session id: a hash of the id,
// so it needs no storage, changes with each session and cannot be turned
// back into the id. The console reads it from the sign-in answer (or GET
// /console/session) and sends it in a header with each request; a page
// on another site can neither read it nor make the browser add it.
func CSRFToken(id string) string {
	sum := sha256.Sum256([]byte(csrfContext + id))
	return sessionEncoding.EncodeToString(sum[:])
}
