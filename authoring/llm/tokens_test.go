package llm

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// Counts are the tokenizer's, not a length heuristic: known o200k_base
// counts, additivity over separated words, and agreement under concurrency.
func TestCount(t *testing.T) {
	t.Parallel()
	c, err := NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"The employee has been employed for at least 12 months", 11},
	} {
		got, err := c.Count(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("Count(%q) = %d, %v; want %d", tc.text, got, err, tc.want)
		}
	}
	statute, err := os.ReadFile("../../casebank/us-fmla-employee/source.txt")
	if err != nil {
		t.Fatal(err)
	}
	one, _ := c.Count(string(statute))
	if one < len(strings.Fields(string(statute)))/2 || one > len(statute) {
		t.Fatalf("statute of %d bytes counted as %d tokens", len(statute), one)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if n, _ := c.Count(string(statute)); n != one {
				t.Errorf("concurrent count %d, want %d", n, one)
			}
		})
	}
	wg.Wait()
}

// BenchmarkCount measures the exact token count of about 1 MB of statute
// text, what an upload of that size pays once.
func BenchmarkCount(b *testing.B) {
	c, err := NewCounter()
	if err != nil {
		b.Fatal(err)
	}
	statute, err := os.ReadFile("../../casebank/us-fmla-employee/source.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(statute), (1<<20)/len(statute))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := c.Count(text); err != nil {
			b.Fatal(err)
		}
	}
}
