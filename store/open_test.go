package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestOpenPoolSize: Open sizes the pool for a serving process unless the
// URL says otherwise.
func TestOpenPoolSize(t *testing.T) {
	url := storetest.New(t).Config().ConnString()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, tc := range []struct {
		url  string
		want int32
	}{
		{url, store.DefaultMaxConns},
		{url + sep + "pool_max_conns=7", 7},
	} {
		pool, err := store.Open(context.Background(), tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := pool.Config().MaxConns; got != tc.want {
			t.Errorf("%s: MaxConns %d, want %d", tc.url, got, tc.want)
		}
		pool.Close()
	}
}
