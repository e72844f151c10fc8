package plan

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refSet is the obvious set of slots the tests check fieldSet against.
type refSet map[int]bool

func (r refSet) fieldSet() fieldSet {
	var s fieldSet
	for i := range r {
		s.add(i)
	}
	return s
}

func (r refSet) slots() []int {
	out := []int{}
	for i := range r {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// randomRef draws a set of slots below n, each slot in with probability p.
func randomRef(rnd *rand.Rand, n int, p float64) refSet {
	r := refSet{}
	for i := range n {
		if rnd.Float64() < p {
			r[i] = true
		}
	}
	return r
}

// Sets within the slots held in place and beyond them (a ruleset of up to
// syntax.MaxFields fields, a composed rulebook of more) answer every
// operation as the obvious set does, and equal sets are == (so they key
// maps) however they were built.
func TestFieldSetOperations(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{60, inlineWords * 64, inlineWords*64 + 1, 301, 500, 1500, 3000} {
		for range 12 {
			p := []float64{0.01, 0.1, 0.5}[rnd.IntN(3)]
			ra, rb := randomRef(rnd, n, p), randomRef(rnd, n, p)
			a, b := ra.fieldSet(), rb.fieldSet()
			var union, inter, minus refSet = refSet{}, refSet{}, refSet{}
			subset := true
			for i := range ra {
				union[i] = true
				if rb[i] {
					inter[i] = true
				} else {
					minus[i], subset = true, false
				}
			}
			for i := range rb {
				union[i] = true
			}
			for _, tc := range []struct {
				op        string
				got, want fieldSet
				wantSlots []int
			}{
				{"a", a, ra.fieldSet(), ra.slots()},
				{"union", a.union(b), union.fieldSet(), union.slots()},
				{"intersect", a.intersect(b), inter.fieldSet(), inter.slots()},
				{"minus", a.minus(b), minus.fieldSet(), minus.slots()},
				{"a minus a", a.minus(a), fieldSet{}, []int{}},
			} {
				if tc.got != tc.want {
					t.Fatalf("n=%d %s: %v is not == the same set built slot by slot", n, tc.op, tc.got.slots())
				}
				if got := append([]int{}, tc.got.slots()...); !slices.Equal(got, tc.wantSlots) {
					t.Fatalf("n=%d %s: slots %v, want %v", n, tc.op, got, tc.wantSlots)
				}
				if tc.got.count() != len(tc.wantSlots) || tc.got.empty() != (len(tc.wantSlots) == 0) {
					t.Fatalf("n=%d %s: count %d empty %v for %d slots", n, tc.op, tc.got.count(), tc.got.empty(), len(tc.wantSlots))
				}
			}
			if a.subsetOf(b) != subset || !inter.fieldSet().subsetOf(a) || !a.subsetOf(a.union(b)) {
				t.Fatalf("n=%d: subsetOf disagrees", n)
			}
			for range 20 {
				i := rnd.IntN(n + 64)
				if a.has(i) != ra[i] || !a.with(i).has(i) {
					t.Fatalf("n=%d: has(%d) %v, want %v", n, i, a.has(i), ra[i])
				}
				c := a.with(i)
				c.remove(i)
				delete(ra, i)
				if c != ra.fieldSet() || c.has(i) {
					t.Fatalf("n=%d: add then remove %d leaves %v", n, i, c.slots())
				}
				ra[i] = a.has(i)
				if !ra[i] {
					delete(ra, i)
				}
			}
			weights := make([]int64, n)
			var want int64
			for i := range weights {
				weights[i] = int64(rnd.IntN(9))
				if ra[i] {
					want += weights[i]
				}
			}
			if got := a.weigh(weights); got != want {
				t.Fatalf("n=%d: weigh %d, want %d", n, got, want)
			}
			// The earliest slot in one set and not the other decides.
			wantFirst := false
			for i := range n {
				if ra[i] != rb[i] {
					wantFirst = ra[i]
					break
				}
			}
			if got := a.firstDiffers(b); got != wantFirst {
				t.Fatalf("n=%d: firstDiffers %v, want %v (a %v, b %v)", n, got, wantFirst, a.slots(), b.slots())
			}
			words := (n + 63) / 64
			if ka, kb := string(a.appendWords(nil, words)), string(b.appendWords(nil, words)); (ka == kb) != (a == b) || len(ka) != 8*words {
				t.Fatalf("n=%d: cache key bytes equal %v (%d bytes), sets equal %v", n, ka == kb, len(ka), a == b)
			}
		}
	}
}
