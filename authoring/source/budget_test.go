package source

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/eligo/eligo/authoring/source/sourcetest"
)

// amplifyingPages is the page count of the amplifying PDF the tests
// upload: about 130 KB that pdftotext reads as 20 MB of text, the shape
// of the probe's 219 KB PDF that extracted to 57 MB.
const amplifyingPages = 600

// TestExtractAmplifyingPDF is the probe: a small PDF that repeats one
// content stream over many pages is refused once its text passes the
// limit, instead of being read whole (it took the server from 58 MB to
// 2.54 GB).
func TestExtractAmplifyingPDF(t *testing.T) {
	t.Parallel()
	pdf := sourcetest.Amplifying(amplifyingPages)
	if len(pdf) > 200<<10 {
		t.Fatalf("the amplifying PDF is %d bytes, want a small file", len(pdf))
	}
	_, err := Extract(context.Background(), MediaPDF, pdf)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16777216 bytes") {
		t.Fatalf("got %v, want ErrTooLarge naming the 16 MiB limit", err)
	}
}

func TestBudgetSharedAcrossFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 20 pages of the amplifying PDF extract to about 660 KB.
	small := sourcetest.Amplifying(20)
	b := NewBudget(1<<20, 1<<20, time.Minute)
	ex, err := b.Extract(ctx, MediaPDF, small)
	if err != nil || len(ex.Text) < 600_000 || len(ex.Pages) != 20 {
		t.Fatalf("first file: %d bytes, %d pages, %v", len(ex.Text), len(ex.Pages), err)
	}
	if _, err := b.Extract(ctx, MediaPDF, small); !errors.Is(err, ErrBudgetExceeded) || !strings.Contains(err.Error(), "1048576 bytes of text together") {
		t.Fatalf("second file: %v, want ErrBudgetExceeded naming the total", err)
	}
	// What is left still admits a small file, of any type.
	if _, err := b.Extract(ctx, MediaPlain, []byte("Section 1. A short rule.")); err != nil {
		t.Fatalf("a small text after: %v", err)
	}
	if _, err := NewBudget(1<<20, 4<<20, time.Minute).Extract(ctx, MediaPDF, sourcetest.Amplifying(40)); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1048576 bytes, the most one source may hold") {
		t.Fatalf("one file over the per-source limit: %v, want ErrTooLarge", err)
	}

	// Plain text and HTML count alike.
	text := []byte(strings.Repeat("word ", 20)) // 100 bytes
	b = NewBudget(100, 150, time.Minute)
	if _, err := b.Extract(ctx, MediaPlain, text); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Extract(ctx, MediaHTML, append([]byte("<p>"), text...)); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("HTML over what is left: %v, want ErrBudgetExceeded", err)
	}
	if _, err := NewBudget(100, 150, time.Minute).Extract(ctx, MediaMarkdown, append(text, 'x')); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("text over the per-source limit: %v, want ErrTooLarge", err)
	}
}

func TestBudgetTime(t *testing.T) {
	t.Parallel()
	b := NewBudget(1<<20, 1<<20, time.Nanosecond)
	time.Sleep(time.Millisecond) // the budget's whole time is spent
	_, err := b.Extract(context.Background(), MediaPDF, sourcetest.Amplifying(1))
	if !errors.Is(err, ErrExtractionTimeout) || errors.Is(err, ErrUnreadable) {
		t.Fatalf("got %v, want ErrExtractionTimeout", err)
	}
	// The caller's own cancellation is not the upload's fault.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBudget(1<<20, 1<<20, time.Minute).Extract(ctx, MediaPDF, sourcetest.Amplifying(1)); !errors.Is(err, context.Canceled) || errors.Is(err, ErrExtractionTimeout) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
}

// TestPageTextNeverHoldsMoreThanLimit streams four times the limit and
// checks the text stops at it, the process is told to stop, and later
// writes fail at once.
func TestPageTextNeverHoldsMoreThanLimit(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	stopped := false
	pt := &pageText{limit: limit, stop: func() { stopped = true }}
	chunk := []byte(strings.Repeat("line of text\n", 32<<10/13))
	var err error
	written := 0
	for written < 4*limit && err == nil {
		var n int
		n, err = pt.Write(chunk)
		written += n
	}
	if !errors.Is(err, errOverLimit) || !stopped || pt.size > limit {
		t.Fatalf("after %d bytes: err %v, stopped %v, holding %d bytes (limit %d)", written, err, stopped, pt.size, limit)
	}
	if written > limit+len(chunk) {
		t.Errorf("took %d bytes past a %d-byte limit", written, limit)
	}
	if n, err := pt.Write(chunk); n != 0 || err == nil {
		t.Errorf("a write after the limit: %d, %v", n, err)
	}
}

func TestPageTextPageLimit(t *testing.T) {
	t.Parallel()
	pt := &pageText{limit: MaxTextBytes, stop: func() {}}
	_, err := pt.Write([]byte(strings.Repeat("a\f", MaxPages+1)))
	if !errors.Is(err, ErrTooManyPages) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 50000 pages") {
		t.Fatalf("got %v, want ErrTooLarge naming the page limit", err)
	}
	pt = &pageText{limit: MaxTextBytes, stop: func() {}}
	if _, err := pt.Write([]byte(strings.Repeat("a\f", MaxPages))); err != nil || len(pt.extracted().Pages) != MaxPages {
		t.Fatalf("%d pages: %v", MaxPages, err)
	}
}

// referencePages is how the text was made from pdftotext's whole output
// before it was streamed: pageText must agree with it however the output
// is cut into writes.
func referencePages(out string) Extracted {
	out = strings.ToValidUTF8(out, string(utf8.RuneError))
	out = strings.ReplaceAll(out, "\x00", "")
	ex := Extracted{Pages: []int{0}}
	for i := 0; i < len(out); i++ {
		if out[i] == '\f' && i+1 < len(out) {
			ex.Pages = append(ex.Pages, i+1)
		}
	}
	ex.Text = strings.ReplaceAll(out, "\f", "\n")
	return ex
}

func TestPageTextMatchesWholeOutput(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "word ", "\n", "\f", "\x00", "\xff", "\xe2\x80", "\x80", "—", "§", "\U0001F600", "\uFFFD", "\xf0\x9f", "\t"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out := b.String()
		want := referencePages(out)
		for _, chunk := range []int{1, 2, 3, 5, max(len(out), 1)} {
			got := streamPages(t, out, chunk, MaxTextBytes)
			if got.Text != want.Text || !equalInts(got.Pages, want.Pages) {
				t.Fatalf("%q in chunks of %d: %q %v, want %q %v", out, chunk, got.Text, got.Pages, want.Text, want.Pages)
			}
		}
	}
}

// BenchmarkExtractAmplifyingPDF measures extracting the amplifying PDF
// (130 KB, 20 MB of text) under Extract's own limit: time, allocation, and
// the peak heap held while it runs (peak-MB).
func BenchmarkExtractAmplifyingPDF(b *testing.B) {
	pdf := sourcetest.Amplifying(amplifyingPages)
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		peak = max(peak, sourcetest.PeakHeap(func() {
			if _, err := Extract(context.Background(), MediaPDF, pdf); !errors.Is(err, ErrTooLarge) {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}
