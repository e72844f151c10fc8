package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"net/http"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/store"
)

// IdempotencyHeader is the header a caller names a request with so that
// retrying it cannot do its work twice (the IETF draft's name).
const IdempotencyHeader = "Idempotency-Key"

// Idempotency keys: the longest key, and the largest answer kept for
// replay (a larger one is not kept, so its retry does the work). A claim
// whose request has not answered within the write timeout (its process
// died) is taken over by a retry; keys are kept store.IdempotencyRetention.
const (
	maxIdempotencyKey   = 255
	maxIdempotentAnswer = 1 << 20
)

// idempotencyDoc is appended to the description of every operation that
// takes an Idempotency-Key.
const idempotencyDoc = "Send an `Idempotency-Key` header (1 to 255 printable ASCII characters, e.g. a UUID) to make a retry safe: " +
	"a repeat with the same key, from the same tenant, to the same operation, within 24 hours, gets the first request's answer " +
	"(with `Idempotent-Replayed: true`) instead of doing the work again. While the first request runs, a repeat is 409 `idempotency_key_in_use`; " +
	"the same key with another path or body is 422 `idempotency_key_reused`. An answer the retry could change (5xx, 408, 409, 429) is not kept, so its retry does the work."

// serveIdempotent serves r, a request to an operation that takes an
// Idempotency-Key, remembering its answer under the key so that a retry
// is answered from it. Without a key, or for an anonymous caller, it
// serves r as any other request.
func (s *Server) serveIdempotent(w http.ResponseWriter, r *http.Request, route Route) {
	key := r.Header.Get(IdempotencyHeader)
	p, keyed := auth.PrincipalFrom(r.Context())
	if key == "" || !keyed {
		s.mux.ServeHTTP(w, r)
		return
	}
	ctx := r.Context()
	if !validIdempotencyKey(key) {
		WriteError(w, NewProblem(http.StatusBadRequest, "bad_request", ReasonIdempotencyKeyInvalid,
			"The Idempotency-Key header must be 1 to 255 printable ASCII characters, such as a UUID."))
		return
	}
	method, uri, contentType := r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type")
	var hash string
	var streamed *requestDigest
	if route.StreamBody {
		// The body is not read before the handler: the claim is made
		// under the request without its body, and the whole request's
		// hash is stored with the answer, once the handler has read it.
		streamed = newRequestDigest(method, uri, contentType)
		hash = IdempotencyHash(method, uri, contentType, []byte(streamedBody))
	} else {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			WriteError(w, BodyReadFailed(err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		hash = IdempotencyHash(method, uri, contentType, body)
	}

	k := store.IdempotencyKey{TenantID: p.TenantID, Operation: route.OperationID, Key: key}
	claimed, stored, err := s.store.ClaimIdempotency(ctx, k, hash, s.cfg.WriteTimeout)
	if err == nil && !claimed && streamed != nil && stored.Status != 0 {
		// A retry of a streamed request: its hash is its body's, read now.
		if _, err := io.Copy(io.Discard, streamed.tee(r.Body)); err != nil {
			WriteError(w, BodyReadFailed(err))
			return
		}
		hash = streamed.sum()
	}
	switch {
	case err != nil:
		if gone := clientGone(ctx); gone != nil {
			WriteError(w, gone)
			return
		}
		Log(ctx).ErrorContext(ctx, "idempotency key", "error", err)
		WriteError(w, Internal())
		return
	case claimed:
	case stored.RequestHash != hash && (streamed == nil || stored.Status != 0):
		WriteError(w, NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", ReasonIdempotencyKeyReused,
			"This Idempotency-Key was used for another request (another path or body) in the last 24 hours. Use a new key for a new request."))
		return
	case stored.Status == 0:
		WriteError(w, NewProblem(http.StatusConflict, "conflict", ReasonIdempotencyKeyInUse,
			"A request with this Idempotency-Key is still being served. Wait for its answer, or retry after the Retry-After seconds.").
			WithRetryAfter(5*time.Second))
		return
	default:
		w.Header().Set("Content-Type", stored.ContentType)
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(stored.Status)
		_, _ = w.Write(stored.Body)
		return
	}

	if streamed != nil {
		r.Body = io.NopCloser(streamed.tee(r.Body))
	}
	rec := &answerRecorder{ResponseWriter: w}
	s.mux.ServeHTTP(rec, r)
	// The claim is settled whatever happened to the request's own context
	// (its caller may have gone: the answer still stands for the retry).
	settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	answer := store.IdempotentAnswer{Status: rec.status, ContentType: rec.Header().Get("Content-Type"), Body: rec.body.Bytes()}
	keep := keepable(rec.status) && !rec.overflow
	if streamed != nil && keep {
		// A handler that refused the body before its end leaves the rest
		// unread: it is read (within the caller's cap) for the hash.
		_, err := io.Copy(io.Discard, r.Body)
		keep, answer.RequestHash = err == nil, streamed.sum()
	}
	if keep {
		err = s.store.FinishIdempotency(settle, k, answer)
	} else {
		err = s.store.ReleaseIdempotency(settle, k)
	}
	if err != nil {
		Log(ctx).ErrorContext(ctx, "settle idempotency key", "error", err)
	}
}

// streamedBody stands for the body in the hash a streamed request is
// claimed under, before its body has been read.
const streamedBody = "\x00streamed body"

// requestDigest hashes a request as IdempotencyHash does, its body as it
// streams.
type requestDigest struct{ h hash.Hash }

func newRequestDigest(method, requestURI, contentType string) *requestDigest {
	d := &requestDigest{h: sha256.New()}
	d.h.Write([]byte(method + " " + requestURI + "\n" + contentType + "\n"))
	return d
}

// tee is r, its bytes added to the digest as they are read.
func (d *requestDigest) tee(r io.Reader) io.Reader { return io.TeeReader(r, d.h) }

// sum is the request's hash, the body read so far included.
func (d *requestDigest) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// IdempotencyHash identifies a request under its Idempotency-Key: the
// same key with another hash is another request reusing the key.
func IdempotencyHash(method, requestURI, contentType string, body []byte) string {
	d := newRequestDigest(method, requestURI, contentType)
	d.h.Write(body)
	return d.sum()
}

// keepable says whether an answer is the request's final word, to be
// replayed to retries: not one a retry could change (a server failure, a
// timeout, a conflict, a rate limit).
func keepable(status int) bool {
	switch {
	case status == 0, status >= 500:
		return false
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooManyRequests:
		return false
	}
	return true
}

// validIdempotencyKey: 1 to 255 printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// answerRecorder passes an answer through to the caller and keeps a copy
// of it (up to maxIdempotentAnswer bytes) for retries.
type answerRecorder struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	overflow bool
}

func (a *answerRecorder) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *answerRecorder) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if a.body.Len()+len(p) > maxIdempotentAnswer {
		a.overflow = true
	} else {
		a.body.Write(p)
	}
	return a.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (a *answerRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }
