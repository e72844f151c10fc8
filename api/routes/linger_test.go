package routes

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

// TestOversizedBodyGets413NotAReset plays a client that writes its whole
// 3 MB body before reading anything, as Python's http.client and browsers'
// fetch do, with a Content-Length and chunked: it reads the 413 problem
// rather than a connection reset. With a Content-Length the body is refused
// unread, and the server discards it without holding it (its allocations
// stay far below the body's size); a chunked body is read up to the cap
// first, like any body.
// Not parallel: it reads the process's allocation count, which other
// tests running at the same time would inflate.
func TestOversizedBodyGets413NotAReset(t *testing.T) {
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	addr := strings.TrimPrefix(f.HTTP.URL, "http://")
	body := bytes.Repeat([]byte("x"), 3<<20)
	chunked := func() []byte {
		var b bytes.Buffer
		for rest := body; len(rest) > 0; {
			chunk := rest[:min(len(rest), 64<<10)]
			rest = rest[len(chunk):]
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(chunk), chunk)
		}
		b.WriteString("0\r\n\r\n")
		return b.Bytes()
	}()
	for _, c := range []struct {
		name   string
		header string
		body   []byte
		unread bool
	}{
		{"content-length", fmt.Sprintf("Content-Length: %d\r\n", len(body)), body, true},
		{"chunked", "Transfer-Encoding: chunked\r\n", chunked, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			head := "POST " + api.RootPath + "/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + c.header + "\r\n"
			if _, err := io.WriteString(conn, head); err != nil {
				t.Fatal(err)
			}
			// Written in pieces over about a second, as a client on a real
			// network sends it: longer than net/http waits before closing.
			for rest := c.body; len(rest) > 0; {
				piece := rest[:min(len(rest), 128<<10)]
				rest = rest[len(piece):]
				if _, err := conn.Write(piece); err != nil {
					t.Fatalf("writing the whole body: %v", err)
				}
				time.Sleep(40 * time.Millisecond)
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer after the whole body: %v", err)
			}
			answer, err := io.ReadAll(res.Body)
			res.Body.Close()
			runtime.ReadMemStats(&after)
			if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(answer), api.ReasonBodyTooLarge) {
				t.Fatalf("answer %d %s (%v), want 413 %s", res.StatusCode, answer, err, api.ReasonBodyTooLarge)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; c.unread && grew > 2<<20 {
				t.Errorf("the server allocated %d bytes while refusing a 3 MB body: it should discard, not keep", grew)
			}
		})
	}
}
