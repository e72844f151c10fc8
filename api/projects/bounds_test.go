package projects

import (
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// TestEmptyCasesAreRefusedBeforeDecoding: create-project with test_cases
// of many empty objects, with a free-tier key. A 100 KB body used to be
// answered with 6.8 MB of missing members, and 1.4 million (4 MB) took
// the process to 10.7 GB for 153 s; both are now refused from one pass
// over the bytes (the list is over its 100 items; past 200,000 values the
// body is), with a short answer and a few body sizes of allocation.
func TestEmptyCasesAreRefusedBeforeDecoding(t *testing.T) {
	f := newFixture(t)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsWrite}, time.Time{})
	for _, tt := range []struct {
		name  string
		cases int
		first string
	}{
		{"100 KB", 34_000, "missing"},
		{"4 MB", 1_400_000, "too_long"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f.PostRefused(t, "/projects/", key, apitest.EmptyCasesBody(tt.cases), tt.first, 6)
		})
	}
}
