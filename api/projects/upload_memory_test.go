package projects

import (
	"io"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/worker"
)

// repeatReader reads line n times without holding more than the line, so
// that the test's client holds none of the caseload it uploads.
type repeatReader struct {
	line []byte
	n    int
	at   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		if r.n == 0 {
			if written == 0 {
				return 0, io.EOF
			}
			break
		}
		c := copy(p[written:], r.line[r.at:])
		written += c
		if r.at += c; r.at == len(r.line) {
			r.at, r.n = 0, r.n-1
		}
	}
	return written, nil
}

// heapPeak samples the heap in use until stop is called and returns the
// most it saw above where it started.
func heapPeak() (stop func() (peakMiB, allocMiB float64)) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, allocBase := ms.HeapAlloc, ms.TotalAlloc
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return sync.OnceValues(func() (float64, float64) {
		close(done)
		<-finished
		runtime.ReadMemStats(&ms)
		return float64(peak-min(peak, base)) / (1 << 20), float64(ms.TotalAlloc-allocBase) / (1 << 20)
	})
}

// TestCaseloadUploadStreams: an upload of a caseload near the size limit
// is checked and stored as it streams in: the server's heap grows by a
// small window of the file (its chunk, its line buffer), not the file.
// The collector runs at a low target during the upload, so that the heap
// sampled is close to what is held. (Reading the whole body before the
// handler, as other operations do, grows it by the file and more.) The
// figures are logged: the peak above the start, and what was allocated
// per MiB uploaded (docs/performance.md#caseload-impact).
func TestCaseloadUploadStreams(t *testing.T) {
	// Not parallel: the heap sampled is the whole process's.
	f := newImpactFixture(t, worker.ImpactConfig{})
	line := []byte(`{"field_values":{"household.size":2,"household.region":"alaska","income.gross_monthly":2350,"income.net_monthly":1500,"household.elderly_or_disabled_member":false},"reference":"A-0001"}` + "\n")
	n := (MaxCaseloadBytes - (1 << 20)) / len(line)
	size := float64(n*len(line)) / (1 << 20)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	stop := heapPeak()
	r := f.Do(t, http.MethodPost, f.project+"/caseloads", map[string]string{"x-api-key": f.key, "Content-Type": "application/x-ndjson"},
		&repeatReader{line: line, n: n})
	peak, alloc := stop()
	want(t, r, http.StatusCreated)
	if rows := obj(t, r.Body)["rows"]; rows != float64(n) {
		t.Fatalf("rows = %v, want %d", rows, n)
	}
	t.Logf("uploaded %.1f MiB: heap peak %.1f MiB above the start, %.0f KiB allocated per MiB", size, peak, alloc*1024/size)
	if peak > size/3 {
		t.Errorf("the heap grew by %.1f MiB for an upload of %.1f MiB: the body is held, not streamed", peak, size)
	}
}

// TestRetriedCaseloadUploadIsNotDuplicated: a caseload upload, whose body
// streams to the handler, keeps its Idempotency-Key's guarantees: a retry
// of the same file gets the first answer and stores nothing more, another
// file under the key is refused, and a retry of a file the first request
// refused (over the row limit, read only in part by the check) gets the
// first refusal, storing nothing.
func TestRetriedCaseloadUploadIsNotDuplicated(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	upload := func(idem string, body io.Reader) apitest.Response {
		return f.Do(t, http.MethodPost, f.project+"/caseloads", map[string]string{"x-api-key": f.key, "Idempotency-Key": idem,
			"Content-Type": "application/x-ndjson"}, body)
	}
	_, body := snapCaseload(30)
	first := upload("c-1", strings.NewReader(body))
	want(t, first, http.StatusCreated)
	again := upload("c-1", strings.NewReader(body))
	if again.Status != http.StatusCreated || again.Raw != first.Raw || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry was not answered with the first answer:\nfirst %s\nretry %d %s (replayed %q)", first.Raw, again.Status, again.Raw, again.Header.Get("Idempotent-Replayed"))
	}
	if n := len(obj(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads", nil).Body)["caseloads"].([]any)); n != 1 {
		t.Errorf("the project holds %d caseloads after an upload and its retry, want 1", n)
	}
	if other := upload("c-1", strings.NewReader(body+"\n{}\n")); other.Status != http.StatusUnprocessableEntity || reason(t, other) != api.ReasonIdempotencyKeyReused {
		t.Errorf("the key reused for another file: %d %s", other.Status, other.Raw)
	}

	// More rows than a caseload keeps (each a bad row of two bytes): the
	// check stops reading part way, and the rest is read for the hash.
	tooMany := func() io.Reader { return &repeatReader{line: []byte("x\n"), n: MaxCaseloadRows + 1000} }
	refused := upload("c-2", tooMany())
	if refused.Status != http.StatusRequestEntityTooLarge || reason(t, refused) != ReasonCaseloadTooLarge {
		t.Fatalf("an upload over the row limit: %d %s", refused.Status, refused.Raw)
	}
	if retry := upload("c-2", tooMany()); retry.Status != http.StatusRequestEntityTooLarge || retry.Raw != refused.Raw || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry of the refused upload: %d %s (replayed %q)", retry.Status, retry.Raw, retry.Header.Get("Idempotent-Replayed"))
	}
	if n := len(obj(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads", nil).Body)["caseloads"].([]any)); n != 1 {
		t.Errorf("the project holds %d caseloads after refused uploads, want 1", n)
	}
}

// stallingReader sends a caseload's first rows, then nothing for stall,
// then the rest: a client whose upload stops mid-file.
type stallingReader struct {
	first, rest io.Reader
	stall       time.Duration
	stalled     bool
}

func (r *stallingReader) Read(p []byte) (int, error) {
	n, err := r.first.Read(p)
	if err != io.EOF {
		return n, err
	}
	if !r.stalled {
		r.stalled = true
		time.Sleep(r.stall)
	}
	return r.rest.Read(p)
}

// TestCaseloadUploadTooSlow: an upload whose body stops arriving for
// longer than the server gives a body is answered 408, as any other body
// that does not arrive in time, and keeps nothing.
func TestCaseloadUploadTooSlow(t *testing.T) {
	t.Parallel()
	f := newImpactFixtureWith(t, worker.ImpactConfig{}, api.Config{Metering: apitest.GenerousMetering(), BodyReadTimeout: 500 * time.Millisecond})
	_, body := snapCaseload(40)
	half := len(body) / 2
	r := f.Do(t, http.MethodPost, f.project+"/caseloads", map[string]string{"x-api-key": f.key, "Content-Type": "application/x-ndjson"},
		&stallingReader{first: strings.NewReader(body[:half]), rest: strings.NewReader(body[half:]), stall: 2 * time.Second})
	want(t, r, http.StatusRequestTimeout)
	if code := obj(t, r.Body)["detail"].(map[string]any)["error"]; code != "request_timeout" {
		t.Errorf("a stalled upload: %s, want the error request_timeout", r.Raw)
	}
	if kept := obj(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads", nil).Body)["caseloads"].([]any); len(kept) != 0 {
		t.Errorf("a stalled upload kept a caseload: %v", kept)
	}
}
