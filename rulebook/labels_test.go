package rulebook

import (
	"errors"
	"strings"
	"testing"
)

func TestWordLists(t *testing.T) {
	t.Parallel()
	w := words()
	if len(w.adjectives) < 150 || len(w.nouns) < 150 {
		t.Errorf("%d adjectives and %d nouns; the lists should hold about 200 each", len(w.adjectives), len(w.nouns))
	}
	for _, bad := range []string{
		"[adjectives]\nbold\n[nouns]\nbold\n",
		"[adjectives]\nBold\n[nouns]\nfox\n",
		"[adjectives]\nsky-blue\n[nouns]\nfox\n",
		"bold\n[nouns]\nfox\n",
		"[adjectives]\nbold\n",
	} {
		if _, err := parseWords(bad); err == nil {
			t.Errorf("parseWords accepted %q", bad)
		}
	}
}

// TestLabelBijective checks Label over the whole space: every number gives
// a distinct, valid label that LabelNumber maps back to the number.
func TestLabelBijective(t *testing.T) {
	t.Parallel()
	total := LabelCount()
	seen := make(map[string]uint64, total)
	for n := range total {
		l := Label(n)
		if prev, dup := seen[l]; dup {
			t.Fatalf("Label(%d) = Label(%d) = %s", n, prev, l)
		}
		seen[l] = n
		if back, ok := LabelNumber(l); !ok || back != n {
			t.Fatalf("LabelNumber(%s) = %d, %v; want %d", l, back, ok, n)
		}
		if !ValidLabel(l) {
			t.Fatalf("ValidLabel(%s) is false", l)
		}
	}
	if Label(total+5) != Label(5) {
		t.Error("Label does not wrap modulo LabelCount")
	}
}

func TestValidLabel(t *testing.T) {
	t.Parallel()
	w := words()
	adj, noun := w.adjectives[0], w.nouns[0]
	for s, want := range map[string]bool{
		adj + "-" + noun:                       true,
		Label(12345):                           true,
		noun + "-" + adj:                       false, // the order is adjective, noun
		adj + noun:                             false,
		adj + "-" + noun + "-" + adj:           false,
		strings.ToUpper(adj + "-" + noun):      false,
		adj + "-":                              false,
		"-" + noun:                             false,
		"":                                     false,
		adj + " " + noun:                       false,
		"3f2504e0-4f89-11d3-9a0c-0305e82c3301": false, // a release UUID
	} {
		if got := ValidLabel(s); got != want {
			t.Errorf("ValidLabel(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAllocateLabel(t *testing.T) {
	t.Parallel()
	first, err := AllocateLabel(42, nil)
	if err != nil || !ValidLabel(first) {
		t.Fatalf("AllocateLabel(42, nil) = %q, %v", first, err)
	}
	if again, _ := AllocateLabel(42, func(string) bool { return false }); again != first {
		t.Errorf("the same seed gave %s then %s", first, again)
	}
	// Taken labels are skipped, in a fixed order: take the first few and
	// the next free one follows.
	taken := map[string]bool{}
	var order []string
	for range 50 {
		l, err := AllocateLabel(42, func(s string) bool { return taken[s] })
		if err != nil {
			t.Fatal(err)
		}
		if taken[l] {
			t.Fatalf("allocated %s, which is taken", l)
		}
		taken[l] = true
		order = append(order, l)
	}
	if order[0] != first {
		t.Errorf("first allocation %s, want %s", order[0], first)
	}
	other, _ := AllocateLabel(43, nil)
	if other == first {
		t.Errorf("seeds 42 and 43 both start at %s", first)
	}
	// Everything taken: every label is tried once, then ErrNoLabel.
	calls := uint64(0)
	tried := map[string]bool{}
	_, err = AllocateLabel(7, func(s string) bool { calls++; tried[s] = true; return true })
	if !errors.Is(err, ErrNoLabel) {
		t.Errorf("all taken: %v, want ErrNoLabel", err)
	}
	if calls != LabelCount() || uint64(len(tried)) != LabelCount() {
		t.Errorf("all taken: %d calls over %d labels; want each of %d once", calls, len(tried), LabelCount())
	}
	// One label free, wherever it is: it is found.
	free := Label(LabelCount() - 1)
	if l, err := AllocateLabel(7, func(s string) bool { return s != free }); l != free || err != nil {
		t.Errorf("one free label: %q, %v; want %s", l, err, free)
	}
}

func TestCoprimeStep(t *testing.T) {
	t.Parallel()
	for total := uint64(1); total < 200; total++ {
		for x := uint64(0); x < 50; x++ {
			step := coprimeStep(x*7919, total)
			if step < 1 || (total > 2 && step >= total) || gcd(step, total) != 1 {
				t.Fatalf("coprimeStep(%d, %d) = %d", x*7919, total, step)
			}
		}
	}
}
