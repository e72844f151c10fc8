package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/eligo/eligo/api/proxy"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what has been written so far.
func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRequestLogNeverHoldsSecretsOrBodies(t *testing.T) {
	t.Parallel()
	var sink lockedBuffer
	// The test client is a trusted proxy, whose request id is kept.
	s := newServer(t, Config{Logger: slog.New(slog.NewJSONHandler(&sink, nil)),
		TrustedProxies: proxy.Trusted{netip.MustParsePrefix("127.0.0.0/8")}}, store.New(storetest.New(t)))
	srv := httptest.NewServer(s.Handler())

	const apiKey, providerKey, bodySentinel = "elg_secretpx_sentinel-api-key", "sk-sentinel-provider-key", "sentinel-body-value"
	req, _ := http.NewRequest(http.MethodPost, srv.URL+RootPath+"/decide", strings.NewReader(`{"v":"`+bodySentinel+`"}`))
	req.Header.Set("x-api-key", apiKey)
	req.Header.Set("X-Provider-Key", providerKey)
	req.Header.Set("X-Request-Id", "trace-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	srv.Close() // waits for the request, and so for its log line

	logs := sink.String()
	for _, secret := range []string{apiKey, "sentinel-api-key", providerKey, bodySentinel} {
		if strings.Contains(logs, secret) {
			t.Errorf("log holds %q:\n%s", secret, logs)
		}
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(logs)), &line); err != nil {
		t.Fatalf("want one JSON log line, got %q: %v", logs, err)
	}
	for field, want := range map[string]any{"request_id": "trace-1", "method": "POST", "status": float64(res.StatusCode)} {
		if line[field] != want {
			t.Errorf("log %s = %v, want %v", field, line[field], want)
		}
	}
	if _, ok := line["duration_ms"].(float64); !ok {
		t.Errorf("log line lacks duration_ms: %v", line)
	}
}
