package routes

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/redact"
)

// logLines parses the JSON lines of sink, failing on any line longer than
// a sized log line can be.
func logLines(t *testing.T, sink *apitest.LogBuffer) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(sink.String()), "\n") {
		if len(l) > 2*redact.MaxLogged+1024 {
			t.Errorf("a log line of %d bytes: %.300s...", len(l), l)
		}
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, line)
	}
	return out
}

// TestLogsAreSizedAndLevelled: a 1.9 MB reference, a reference with U+0000,
// a client hanging up mid-body, and a lookup that fails in the database
// (its reference long and odd) each leave log lines of ordinary length;
// none puts the caller's text at ERROR, and a hang-up is not an ERROR at
// all.
func TestLogsAreSizedAndLevelled(t *testing.T) {
	t.Parallel()
	var sink apitest.LogBuffer
	f := newFixture(t, api.Config{Logger: slog.New(slog.NewJSONHandler(&sink, nil)), Metering: apitest.GenerousMetering()})
	huge := strings.Repeat("z", 1_900_000)
	if r := f.Decide(t, "", `{"ruleset_id":"`+huge+`","field_values":{}}`); r.Status != http.StatusNotFound {
		t.Errorf("a 1.9 MB ruleset_id: %d, want 404", r.Status)
	}
	if r := f.Decide(t, "", `{"ruleset_id":"demo/x\u0000y","field_values":{}}`); r.Status != http.StatusNotFound {
		t.Errorf("a ruleset_id with U+0000: %d, want 404", r.Status)
	}
	// A client that announces 1,000 bytes, sends ten and hangs up.
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.HTTP.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte("POST " + api.RootPath + "/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"ruleset_"))
	conn.Close()

	// The database goes away: the lookup fails on the server's side.
	f.CloseErrorExpected = true
	f.Pool.Close()
	odd := "demo/" + strings.Repeat("q", 40) + "-secret-ref"
	if r := f.Do(t, http.MethodGet, apitest.RulesetPath(odd, "/schema"), nil, nil); r.Status < 500 {
		t.Errorf("a lookup with the database gone: %d, want a 5xx", r.Status)
	}

	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(sink.String(), `"route":"POST /api/v1/public/decide"`) || strings.Count(sink.String(), `"msg":"request"`) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the hang-up was never logged:\n%s", sink.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	sawFailure := false
	for _, line := range logLines(t, &sink) {
		raw, _ := json.Marshal(line)
		if line["level"] == "ERROR" {
			sawFailure = true
			if strings.Contains(string(raw), "secret-ref") || strings.Contains(string(raw), "zzzz") {
				t.Errorf("caller input at ERROR: %s", raw)
			}
		}
		if line["msg"] == "request" && line["status"] == float64(http.StatusBadRequest) && line["level"] != "INFO" {
			t.Errorf("a hang-up logged at %v: %s", line["level"], raw)
		}
	}
	if !sawFailure {
		t.Error("the failed lookup was not logged at ERROR")
	}
}
