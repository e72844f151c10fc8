package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The load generator: prebuilt requests over plain keep-alive connections,
// and the latencies and decision ids it gathers.

// result is one scenario's measurements.
type result struct {
	ok, errors int
	// firstError is the status and body of the first refused call, so
	// that an errors count can be explained.
	firstError string
	latencies  []time.Duration
	ids        []string
}

// add counts o's calls in r; r's latencies are sorted again afterwards.
func (r *result) add(o *result) {
	r.ok += o.ok
	r.errors += o.errors
	if r.firstError == "" {
		r.firstError = o.firstError
	}
	r.latencies = append(r.latencies, o.latencies...)
	r.ids = append(r.ids, o.ids...)
}

// percentile returns the latency below which a share p of the calls
// fell; r.latencies must be sorted.
func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var decisionIDKey = []byte(`"decision_id":"`)

// drive sends bodies round-robin from concurrency connections for d and
// gathers latencies and the issued decision ids (when keep is set). Each
// connection is a plain HTTP/1.1 keep-alive connection with one request in
// flight at a time: the requests are prebuilt bytes and a response is read
// by its Content-Length, so the generator spends as little of the shared
// CPU as it can (net/http's client costs several times more per request).
func drive(ctx context.Context, base, key string, bodies [][]byte, concurrency int, d time.Duration, keep bool) (*result, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	requests := make([][]byte, len(bodies))
	for i, body := range bodies {
		requests[i] = append([]byte(fmt.Sprintf("POST %s/decide HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			u.Path, u.Host, key, len(body))), body...)
	}
	stop := time.Now().Add(d)
	results := make([]result, concurrency)
	errs := make([]error, concurrency)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Go(func() {
			conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", u.Host)
			if err != nil {
				errs[w] = err
				return
			}
			defer conn.Close()
			rd := bufio.NewReaderSize(conn, 64<<10)
			r := &results[w]
			var body []byte
			for i := w; time.Now().Before(stop); i++ {
				start := time.Now()
				if _, err := conn.Write(requests[i%len(requests)]); err != nil {
					errs[w] = err
					return
				}
				var status int
				status, body, err = readResponse(rd, body[:0])
				if err != nil {
					errs[w] = err
					return
				}
				elapsed := time.Since(start)
				if status != http.StatusOK {
					if r.errors == 0 {
						r.firstError = fmt.Sprintf("%d %s", status, body)
					}
					r.errors++
					continue
				}
				r.ok++
				if keep {
					r.latencies = append(r.latencies, elapsed)
					if id := decisionID(body); id != "" {
						r.ids = append(r.ids, id)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	total := &result{}
	for i := range results {
		total.add(&results[i])
	}
	slices.Sort(total.latencies)
	return total, nil
}

// readResponse reads one HTTP/1.1 response with a Content-Length body (the
// server sends one on every /decide answer) and returns its status and
// body, appended to buf.
func readResponse(rd *bufio.Reader, buf []byte) (int, []byte, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return 0, buf, fmt.Errorf("read status line: %w", err)
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, buf, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, buf, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		line, err := rd.ReadSlice('\n')
		if err != nil {
			return 0, buf, fmt.Errorf("read header: %w", err)
		}
		if len(line) <= 2 {
			break
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return 0, buf, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 {
		return 0, buf, errors.New("response without Content-Length")
	}
	start := len(buf)
	buf = slices.Grow(buf, length)[:start+length]
	if _, err := io.ReadFull(rd, buf[start:]); err != nil {
		return 0, buf, fmt.Errorf("read body: %w", err)
	}
	return status, buf, nil
}
