package authoring

import (
	"context"
	"testing"
)

// BenchmarkCheckText measures what the studio's editor costs the server
// on each pause in typing (docs/operations.md): checking, then completing
// at its end, an unsaved draft of 1,000 criteria, the engine's limit.
func BenchmarkCheckText(b *testing.B) {
	ctx := context.Background()
	w, p := newDraftWorkspace(b)
	s := w.Drafts
	text := grantDraft(1000)
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := s.Check(ctx, "acme", p.ID, text)
			if err != nil || !c.Compiles {
				b.Fatalf("%v %v", err, c.Diagnostics)
			}
		}
	})
	b.Run("complete", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := s.Complete(ctx, "acme", p.ID, text, TextPosition{Line: 5, Character: 4})
			if err != nil || len(c.Items) == 0 {
				b.Fatalf("%v %v", err, c.Items)
			}
		}
	})
}
