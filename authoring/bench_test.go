package authoring

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/authoring/source/sourcetest"
	"github.com/eligo/eligo/store"
)

// BenchmarkUploadAmplifyingPDF measures what one upload of the probe's
// kind costs before anything is stored: extracting, counting and signing
// a 130 KB PDF that reads as 20 MB of text. peak-MB is the most heap held.
func BenchmarkUploadAmplifyingPDF(b *testing.B) {
	s, err := New(nil, nil, Config{})
	if err != nil {
		b.Fatal(err)
	}
	up := []Upload{{Filename: "amplified.pdf", Content: sourcetest.Amplifying(600)}}
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		peak = max(peak, sourcetest.PeakHeap(func() { _, _ = s.Projects.prepareAll(context.Background(), "t", up) }))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}

// BenchmarkPlanGenerationOverBudget measures planning a generation of a
// project whose eight active sources hold 2 MB of text each, about four
// million tokens against a 112,000-token budget: the refusal's time and
// the most heap held getting to it (peak-MB).
func BenchmarkPlanGenerationOverBudget(b *testing.B) {
	s, st := newLimitedWorkspace(b, Config{})
	ctx := context.Background()
	p, _, err := s.Projects.Create(ctx, "acme", CreateRequest{Name: "Big", SectionID: "big"})
	if err != nil {
		b.Fatal(err)
	}
	var rows []store.ProjectSource
	for i := range 8 {
		text := strings.Repeat(fmt.Sprintf("Section %d. The applicant is eligible when the conditions are met. ", i), 2<<20/70)
		sum := sha256.Sum256([]byte(text))
		rows = append(rows, store.ProjectSource{Filename: fmt.Sprintf("s%d.txt", i), MediaType: "text/plain", Content: []byte(text),
			ContentDigest: "sha256:" + hex.EncodeToString(sum[:]), Text: text, Signature: source.Sign(text).Bytes(), EstimatedTokens: len(text) / 5})
	}
	if _, err := st.AddSources(ctx, "acme", p.ID, rows, store.SourceLimits{MaxCount: 50, MaxBytes: 100 << 20}); err != nil {
		b.Fatal(err)
	}
	model := llm.ModelInfo{Name: "m", Encoding: llm.EncodingO200k, ContextWindow: 128_000, Reserved: 16_000}
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		peak = max(peak, sourcetest.PeakHeap(func() {
			if _, err := s.Generation.PlanGeneration(ctx, "acme", p.ID, GenerateRequest{Mode: ModeFresh, Model: model}); err == nil {
				b.Fatal("planned a prompt over the budget")
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}
