package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eligo/eligo/store/storetest"
)

// TestServeBoundsConnections runs `eligo serve` with small caps and short
// deadlines and plays the clients that used to hold connections forever: one
// that trickles its body, one that pipelines requests and never reads the
// answers, and enough idle ones to fill its address's cap. The first gets
// 408, the second loses its connection, and with the cap full /readyz is
// still answered while any other request is refused with 503
// too_many_connections.
func TestServeBoundsConnections(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewEmpty(t).Config().ConnString()
	srv := startServe(t, "--database-url", dbURL, "--worker=false", "--max-connections-per-client", "4",
		"--body-timeout", "1s", "--write-timeout", "2s")
	base := strings.TrimSuffix(srv.root, "/api/v1/public")
	addr := strings.TrimPrefix(base, "http://")
	dialWith := func(d *net.Dialer) net.Conn {
		t.Helper()
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial := func() net.Conn { return dialWith(&net.Dialer{}) }

	t.Run("a body that never arrives is 408", func(t *testing.T) {
		c := dial()
		_, _ = io.WriteString(c, "POST /api/v1/public/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no answer to a trickled body: %v", err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestTimeout {
			t.Errorf("a trickled body: %d, want 408", res.StatusCode)
		}
	})

	t.Run("a client that never reads loses its connection", func(t *testing.T) {
		// A small receive buffer, set before connecting so the window
		// stays small: the server's writes block after a few answers,
		// however slowly a loaded machine produces them.
		c := dialWith(&net.Dialer{Control: func(_, _ string, raw syscall.RawConn) error {
			var err error
			if cerr := raw.Control(func(fd uintptr) {
				err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			}); cerr != nil {
				return cerr
			}
			return err
		}})
		// Each answer is the whole OpenAPI document: 200 of them are far
		// more than the socket buffers hold, so the server's writes block.
		request := "GET /api/v1/public/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
		go func() { _, _ = io.WriteString(c, strings.Repeat(request, 200)) }()
		time.Sleep(6 * time.Second) // three write timeouts, reading nothing
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		answers, reader := 0, bufio.NewReader(c)
		for {
			res, err := http.ReadResponse(reader, nil)
			if err != nil {
				break // the server closed the connection
			}
			_, err = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if err != nil {
				break
			}
			answers++
		}
		if answers >= 200 {
			t.Errorf("all %d answers were delivered to a client that did not read for longer than the write timeout", answers)
		}
	})

	t.Run("with the cap full, probes are answered and the rest refused", func(t *testing.T) {
		// Four connections that send half a request line and wait: the
		// address's cap.
		for range 4 {
			_, _ = io.WriteString(dial(), "GET /api/v1/public/rulesets HTTP/1.1\r\n")
		}
		time.Sleep(200 * time.Millisecond) // let the server accept them
		ask := func(path string) (int, string) {
			c := dial()
			_, _ = io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, string(body)
		}
		if status, body := ask("/readyz"); status != http.StatusOK {
			t.Errorf("/readyz with the cap full: %d %s", status, body)
		}
		if status, body := ask("/api/v1/public/rulesets"); status != http.StatusServiceUnavailable || !strings.Contains(body, "too_many_connections") {
			t.Errorf("a request over the cap: %d %s, want 503 too_many_connections", status, body)
		}
	})
	srv.stop(t)
}
