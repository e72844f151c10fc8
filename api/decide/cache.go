package decide

import (
	"encoding/binary"
	"hash/maphash"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/eligo/eligo/engine"
)

// DefaultCacheTTL is how long a decision is served from memory
// unless Config says otherwise: the upper bound of 10 minutes (docs/api.md#the-decision-cache).
const DefaultCacheTTL = 10 * time.Minute

// DefaultCacheEntries bounds the decision cache. An entry holds one
// decision without its per-call stamps: a few hundred bytes plain, a few
// kilobytes with trace and explanation, so the default stays well under
// 100 MB even when every entry carries both.
const DefaultCacheEntries = 20000

// hashedCache is a size-bounded LRU with a TTL whose keys are byte
// strings: entries are indexed by a seeded 64-bit hash of the key and keep
// the key itself, compared on every hit, so a lookup allocates nothing and a
// hash collision is a miss, never a wrong answer. nil is a cache that holds
// nothing.
type hashedCache[V any] struct {
	seed maphash.Seed
	lru  *expirable.LRU[uint64, hashedEntry[V]]
}

type hashedEntry[V any] struct {
	key   string
	value V
}

// newHashedCache returns a cache of at most entries values, each kept for
// ttl; nil (no cache) when ttl or entries is not positive.
func newHashedCache[V any](entries int, ttl time.Duration) *hashedCache[V] {
	if entries <= 0 || ttl <= 0 {
		return nil
	}
	return &hashedCache[V]{seed: maphash.MakeSeed(), lru: expirable.NewLRU[uint64, hashedEntry[V]](entries, nil, ttl)}
}

func (c *hashedCache[V]) get(key []byte) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	e, ok := c.lru.Get(maphash.Bytes(c.seed, key))
	if !ok || e.key != string(key) {
		return zero, false
	}
	return e.value, true
}

func (c *hashedCache[V]) add(key []byte, v V) {
	if c != nil {
		c.lru.Add(maphash.Bytes(c.seed, key), hashedEntry[V]{key: string(key), value: v})
	}
}

// The two levels of the decision cache. The decision level keeps recent
// decisions, keyed by everything that determines them (decisionCacheKey),
// so an identical request skips evaluation, trace, explanation, path
// planning and graph overlay. Per-call members (decision_id, decision_time,
// timing, warnings) are never cached; the handler stamps them on every
// call, hits included. The conversion level is described at conversion.

// conversion is field_values hashed and bound to a ruleset's slots. It is
// immutable once made (the engine only reads Inputs), so byte-identical
// field_values on the same content share one.
type conversion struct {
	inputsHash string
	inputs     *engine.Inputs
}

// maxCachedFieldValues bounds the field_values kept as conversion cache
// keys; larger bodies are converted every time.
const maxCachedFieldValues = 2048

// conversionCacheKey appends the conversion level's key to b: the content
// digest and the exact field_values bytes. This first level maps them to
// their conversion, so that a byte-identical repeat skips canonicalisation
// (inputs_hash) and conversion, the two costliest steps of a cache hit; the
// decision itself is still looked up by the converted values.
func conversionCacheKey(b []byte, digest string, fieldValues []byte) []byte {
	b = append(b, digest...)
	b = append(b, 0)
	return append(b, fieldValues...)
}

// cacheFlags are the request flags that change the cached decision;
// include_timing only adds a per-call stamp and is not among them.
type cacheFlags uint8

const (
	flagTrace cacheFlags = 1 << iota
	flagExplanation
	flagGraphOverlay
	flagChoiceContext
)

// decisionCacheKey identifies a decision exactly. It is built from the
// converted inputs rather than from inputs_hash: RFC 8785 reads numbers as
// float64, so two integers beyond 2^53 can share an inputs_hash while the
// engine, which reads numbers exactly, tells them apart. The converted slot
// values are canonical in the engine's own terms (1, 1.0 and 1e0 are one
// value; key order and white space are gone), and the field errors carry the
// echoed values they would show.
//
// The key is: content digest, the cut's last change (a republish of the
// same content refreshes its source checks, whose verified_at the
// explanation shows), slug (the graph overlay names it), decision date
// (only for rules that read it), flags, the normalised inquiry_context
// (plan.InquiryContext.Key), the count of provided fields, every slot
// value, every field error.
//
// It is appended to b, so the caller can build it in a stack buffer.
func decisionCacheKey(b []byte, digest string, updated time.Time, slug string, date int64, flags cacheFlags, inquiry string, in *engine.Inputs) []byte {
	b = append(b, digest...)
	b = binary.AppendVarint(b, updated.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(slug)))
	b = append(b, slug...)
	b = binary.AppendVarint(b, date)
	b = append(b, byte(flags))
	b = binary.AppendUvarint(b, uint64(len(inquiry)))
	b = append(b, inquiry...)
	b = binary.AppendUvarint(b, uint64(in.Provided))
	for _, v := range in.Values {
		if !v.Known {
			b = append(b, 0)
			continue
		}
		b = append(b, 1, v.Scale)
		b = binary.AppendVarint(b, v.Num)
	}
	for _, e := range in.FieldErrors {
		for _, s := range []string{e.Field, string(e.Value), e.Type, e.Message} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	return b
}
