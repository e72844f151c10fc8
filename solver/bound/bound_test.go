package bound

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestGateTenantShare: one tenant holds at most half the slots, so another
// tenant always finds one; a tenant's share is forgotten once it holds and
// waits for nothing.
func TestGateTenantShare(t *testing.T) {
	t.Parallel()
	g := NewGate(2)
	a, b := g.For("acme"), g.For("beta")
	releaseA, err := a.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := a.Enter(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("acme took a second slot of a gate of two: %v", err)
	}
	if took, more := a.TryMore(1); took != 0 {
		more()
		t.Errorf("acme took %d spare slots beyond its share", took)
	}
	releaseB, err := b.Enter(context.Background())
	if err != nil {
		t.Fatalf("beta found no slot while acme held its share: %v", err)
	}
	releaseA()
	releaseB()
	if n := len(g.tenants.by); n != 0 {
		t.Errorf("%d tenant shares kept after every run ended", n)
	}
	// The whole-process view takes no tenant's share.
	r1, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r1()
	r2()
}
