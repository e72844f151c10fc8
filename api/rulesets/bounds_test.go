package rulesets

import (
	"bytes"
	"net/http"
	"sync"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

// TestUndeclaredMembersAreRefusedBeforeDecoding: four anonymous
// explain-failure bodies at once, each 1.2 MB of members the schema does
// not declare. Each used to be answered with a 13.7 MB list, and four
// took the heap from 62 MB to 1.58 GB; now each is refused from one pass
// over its bytes with the first items and a count of the rest.
func TestUndeclaredMembersAreRefusedBeforeDecoding(t *testing.T) {
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	body := apitest.UndeclaredMembersBody(1_200_000)
	const callers = 4
	responses := make([]apitest.Response, callers)
	allocated := apitest.Allocated(func() {
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				responses[i] = f.Do(t, http.MethodPost, apitest.RulesetPath("acme/x:20260101-0123456789ab", "/explain-failure"),
					nil, bytes.NewReader(body))
			})
		}
		wg.Wait()
	})
	for _, r := range responses {
		apitest.CheckBoundedRefusal(t, r, "extra_forbidden", allocated/callers, len(body), 6)
	}
}
