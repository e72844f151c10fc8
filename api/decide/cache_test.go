package decide

import (
	"bytes"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

func TestHashedCache(t *testing.T) {
	t.Parallel()
	c := newHashedCache[int](2, time.Minute)
	c.add([]byte("alpha"), 1)
	c.add([]byte("beta"), 2)
	for _, tc := range []struct {
		key  string
		want int
		ok   bool
	}{{"alpha", 1, true}, {"beta", 2, true}, {"gamma", 0, false}, {"alph", 0, false}} {
		if got, ok := c.get([]byte(tc.key)); got != tc.want || ok != tc.ok {
			t.Errorf("get(%q) = %d, %v; want %d, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
	c.add([]byte("gamma"), 3) // evicts the least recently used
	if _, ok := c.get([]byte("alpha")); ok {
		t.Error("a cache of 2 kept 3 entries")
	}
	var off *hashedCache[int]
	off.add([]byte("alpha"), 1)
	if _, ok := off.get([]byte("alpha")); ok || newHashedCache[int](0, time.Minute) != nil || newHashedCache[int](1, 0) != nil {
		t.Error("a disabled cache holds entries")
	}
}

// TestDecisionCacheKey: every part of the identity changes the key, and
// nothing else does.
func TestDecisionCacheKey(t *testing.T) {
	t.Parallel()
	in := func(values ...value.Value) *engine.Inputs {
		return &engine.Inputs{Values: values, Provided: len(values)}
	}
	cut := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	base := func() []byte {
		return decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 0, flagTrace, "", in(value.IntValue(1), value.Value{}))
	}
	if !bytes.Equal(base(), base()) {
		t.Fatal("the same identity gives two keys")
	}
	withError := in(value.IntValue(1), value.Value{})
	withError.FieldErrors = []engine.FieldError{{Field: "x.y", Value: []byte(`"z"`), Message: "unknown"}}
	variants := map[string][]byte{
		"republished": decisionCacheKey(nil, "sha256:aa", cut.Add(time.Second), "acme/x", 0, flagTrace, "", in(value.IntValue(1), value.Value{})),
		"digest":      decisionCacheKey(nil, "sha256:bb", cut, "acme/x", 0, flagTrace, "", in(value.IntValue(1), value.Value{})),
		"slug":        decisionCacheKey(nil, "sha256:aa", cut, "acme/y", 0, flagTrace, "", in(value.IntValue(1), value.Value{})),
		"date":        decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 739000, flagTrace, "", in(value.IntValue(1), value.Value{})),
		"flags":       decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 0, flagTrace|flagExplanation, "", in(value.IntValue(1), value.Value{})),
		"inquiry":     decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 0, flagTrace, "d:x.y", in(value.IntValue(1), value.Value{})),
		"value":       decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 0, flagTrace, "", in(value.IntValue(2), value.Value{})),
		"answered":    decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 0, flagTrace, "", in(value.IntValue(1), value.IntValue(0))),
		"field error": decisionCacheKey(nil, "sha256:aa", cut, "acme/x", 0, flagTrace, "", withError),
	}
	for name, key := range variants {
		if bytes.Equal(key, base()) {
			t.Errorf("a different %s gives the same key", name)
		}
	}
}
