package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSelectScenarios(t *testing.T) {
	t.Parallel()
	names := func(list string) []string {
		t.Helper()
		selected, err := selectScenarios(list)
		if err != nil {
			t.Fatalf("selectScenarios(%q): %v", list, err)
		}
		var out []string
		for _, sc := range selected {
			out = append(out, sc.name)
		}
		return out
	}
	for list, want := range map[string][]string{
		"":                                   {"plain", "plain, no_cache", "trace+explanation", "trace+explanation, no_cache"},
		"plain":                              {"plain"},
		"plain, no_cache":                    {"plain, no_cache"},
		"plain,no_cache":                     {"plain, no_cache"},
		"trace+explanation, no_cache, plain": {"plain", "trace+explanation, no_cache"},
		"plain, plain, no_cache":             {"plain", "plain, no_cache"},
	} {
		if got := names(list); !slices.Equal(got, want) {
			t.Errorf("selectScenarios(%q) = %q, want %q", list, got, want)
		}
	}
	for _, bad := range []string{"no_cache", "plain, nope", "trace"} {
		if _, err := selectScenarios(bad); err == nil {
			t.Errorf("selectScenarios(%q) accepted", bad)
		}
	}
}

// TestBareServer starts the bare server in this process, drives it with
// the generator's own drive function and checks that every call is
// answered with its envelope's bytes and headers (net/http's Date aside),
// and that the server stops when its context ends.
func TestBareServer(t *testing.T) {
	t.Parallel()
	envs := []envelope{
		{Path: "/s0", Header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}, "Date": {"then"}},
			Body: []byte(`{"decision":"eligible","decision_id":"dec_0123456789abcdef"}`)},
		{Path: "/s1", Header: http.Header{"Content-Type": {"application/json"}},
			Body: []byte(`{"decision":"not_eligible","trace":"` + strings.Repeat("x", 100_000) + `"}`)},
	}
	input, err := json.Marshal(envs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- serveBare(ctx, strings.NewReader(string(input)), w) }()
	var addr string
	var procs int
	line, err := bufio.NewReader(out).ReadString('\n')
	if err == nil {
		_, err = fmt.Sscan(line, &addr, &procs)
	}
	if err != nil || procs < 1 {
		t.Fatalf("bare server reported %q: %v", line, err)
	}

	bodies := [][]byte{[]byte(`{"ruleset_id":"x","field_values":{}}`), []byte(`{}`)}
	for _, env := range envs {
		res, err := drive(ctx, "http://"+addr+env.Path, "key", bodies, 2, 200*time.Millisecond, true)
		if err != nil {
			t.Fatalf("%s: %v", env.Path, err)
		}
		if res.ok == 0 || res.errors != 0 || len(res.latencies) != res.ok {
			t.Errorf("%s: %d answered, %d refused (%s), %d latencies", env.Path, res.ok, res.errors, res.firstError, len(res.latencies))
		}
		if got := decisionID(env.Body); got != "" && (len(res.ids) != res.ok || res.ids[0] != got) {
			t.Errorf("%s: ids %d, want %d of %s", env.Path, len(res.ids), res.ok, got)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+env.Path+"/decide", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		answer, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(answer.Body)
		answer.Body.Close()
		if err != nil || string(body) != string(env.Body) {
			t.Errorf("%s: answered %d bytes (%v), want the envelope's %d", env.Path, len(body), err, len(env.Body))
		}
		for name, values := range env.Header {
			if name != "Date" && !slices.Equal(answer.Header[name], values) {
				t.Errorf("%s: header %s = %q, want %q", env.Path, name, answer.Header[name], values)
			}
		}
		if answer.Header.Get("Date") == "then" || answer.ContentLength != int64(len(env.Body)) {
			t.Errorf("%s: Date %q, Content-Length %d", env.Path, answer.Header.Get("Date"), answer.ContentLength)
		}
	}
	res, err := http.Post("http://"+addr+"/s2/decide", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a path without an envelope: %s", res.Status)
	}

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("bare server stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bare server still running after its context ended")
	}
}

func TestShareAndAdd(t *testing.T) {
	t.Parallel()
	if got := share(1, 4); got != "25.0%" {
		t.Errorf("share(1, 4) = %q", got)
	}
	if got := share(1, 0); got != "-" {
		t.Errorf("share(1, 0) = %q", got)
	}
	var total result
	total.add(&result{ok: 2, errors: 1, firstError: "503 a", latencies: []time.Duration{3, 1}, ids: []string{"a"}})
	total.add(&result{ok: 1, errors: 1, firstError: "503 b", latencies: []time.Duration{2}, ids: []string{"b"}})
	slices.Sort(total.latencies)
	if total.ok != 3 || total.errors != 2 || total.firstError != "503 a" || !slices.Equal(total.ids, []string{"a", "b"}) || total.percentile(0.5) != 2 {
		t.Errorf("added up to %+v", total)
	}
}

// TestParseModes: the modes measured side by side, in the order given,
// each once; anything else is refused with the known modes named.
func TestParseModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		list string
		want []string
	}{
		{"spool,spool-fsync,database,buffered", []string{"spool", "spool-fsync", "database", "buffered"}},
		{"buffered, spool", []string{"buffered", "spool"}},
		{"database", []string{"database"}},
		{"durable", nil},
		{"spool,spool", nil},
		{"", nil},
	} {
		got, err := parseModes(c.list)
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), "spool-fsync") && !strings.Contains(err.Error(), "twice") {
				t.Errorf("parseModes(%q) = %v, %v; want a refusal naming the modes", c.list, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseModes(%q) = %v, %v; want %v", c.list, got, err, c.want)
		}
	}
}
