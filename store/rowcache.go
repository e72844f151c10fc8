package store

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// OutageWindow is how long after a row was last read from the database a
// RowCache still serves it while the database cannot be reached: API key
// rows (auth) and resolved slugs, ids and rulebooks (catalog) alike. It
// bounds how old a row served through an outage can be; see
// docs/decision-records.md#where-a-record-is-durable-the-modes-and-what-each-survives
// ("PostgreSQL down").
const OutageWindow = 10 * time.Minute

// RowCache is the read-side cache of rows that can change (a key's row, the
// cut a slug points at), shared by every cache that must ride out a
// database outage, so that they all behave alike:
//
//   - fresh: a row read is reused for the TTL without a database round
//     trip.
//   - recent: the same row is kept for OutageWindow after it was read, and
//     served only when a read of the database fails: callers seen
//     recently keep being served through an outage.
//   - invalidation: Remove and Purge drop both copies, so a change
//     notified (store.InvalidationChannel) wins over either, outage or
//     not. A row read while an invalidation arrived is not kept.
//
// Keys are strings; V is the row. It is safe for concurrent use.
type RowCache[V any] struct {
	// fresh holds rows for the TTL after they were read.
	fresh *expirable.LRU[string, V]
	// recent holds the same rows for OutageWindow after they were read.
	recent *expirable.LRU[string, V]
	// invalidations counts Remove, RemoveMatching and Purge calls, so that a row read
	// while one arrived is not kept (see put).
	invalidations atomic.Uint64
}

// NewRowCache keeps up to size rows, each reused for ttl and served
// through an outage for OutageWindow after it was read.
func NewRowCache[V any](size int, ttl time.Duration) *RowCache[V] {
	return &RowCache[V]{
		fresh:  expirable.NewLRU[string, V](size, nil, ttl),
		recent: expirable.NewLRU[string, V](size, nil, max(ttl, OutageWindow)),
	}
}

// Get is key's fresh row, without reading the database: for a caller
// that must do the same work whatever the answer (auth's key lookup).
func (c *RowCache[V]) Get(key string) (V, bool) {
	return c.fresh.Get(key)
}

// Read is key's row: the fresh one when there (hit is then true), else
// read's, kept. When read fails with anything but ErrNotFound (the
// database cannot be reached, or did not answer in time), the row read
// within OutageWindow answers instead of the error; when there is none,
// the error is returned. A read that finds nothing returns ErrNotFound
// and keeps nothing; a caller that caches misses returns a zero row
// instead.
func (c *RowCache[V]) Read(ctx context.Context, key string, read func(context.Context) (V, error)) (v V, hit bool, err error) {
	if v, ok := c.fresh.Get(key); ok {
		return v, true, nil
	}
	since := c.invalidations.Load()
	v, err = read(ctx)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			if v, ok := c.recent.Get(key); ok {
				return v, false, nil
			}
		}
		var zero V
		return zero, false, err
	}
	c.put(since, key, v)
	return v, false, nil
}

// put keeps v, read from the database, under key, unless an invalidation
// arrived since since (the count before the read): a row read just
// before a change committed may arrive after the change's invalidation,
// and must not then stay. Adding first and checking after leaves no
// moment at which such a row could slip in.
func (c *RowCache[V]) put(since uint64, key string, v V) {
	c.fresh.Add(key, v)
	c.recent.Add(key, v)
	if c.invalidations.Load() != since {
		c.fresh.Remove(key)
		c.recent.Remove(key)
	}
}

// Remove drops the rows of keys from both copies: a change to them was
// written, by this process or another.
func (c *RowCache[V]) Remove(keys ...string) {
	c.invalidations.Add(1)
	for _, k := range keys {
		c.fresh.Remove(k)
		c.recent.Remove(k)
	}
}

// RemoveMatching drops the rows whose key match reports, from both
// copies: a change reaches every key it matches (all the dates cached for
// one slug). It walks every key, so it is for changes, not requests.
func (c *RowCache[V]) RemoveMatching(match func(key string) bool) {
	c.invalidations.Add(1)
	for _, lru := range []*expirable.LRU[string, V]{c.fresh, c.recent} {
		for _, k := range lru.Keys() {
			if match(k) {
				lru.Remove(k)
			}
		}
	}
}

// Purge drops every row, for when changes may have been missed (the
// invalidation listener reconnected).
func (c *RowCache[V]) Purge() {
	c.invalidations.Add(1)
	c.fresh.Purge()
	c.recent.Purge()
}
