package api

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientIPBelievesOnlyTrustedProxies(t *testing.T) {
	t.Parallel()
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	cases := []struct {
		name, peer, forwarded, want string
	}{
		{"direct caller, forged header ignored", "203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},
		{"one trusted proxy", "10.0.0.2:5000", "198.51.100.1", "198.51.100.1"},
		{"client-supplied hop left of the real one is ignored", "10.0.0.2:5000", "1.2.3.4, 198.51.100.1", "198.51.100.1"},
		{"chain of trusted proxies", "10.0.0.2:5000", "198.51.100.1, 10.1.1.1", "198.51.100.1"},
		{"trusted proxy without header", "10.0.0.2:5000", "", "10.0.0.2"},
		{"garbage hop stops the walk", "10.0.0.2:5000", "not-an-ip", "10.0.0.2"},
		{"IPv6 peer", "[2001:db8::1]:443", "", "2001:db8::1"},
		{"hop with a port", "10.0.0.2:5000", "198.51.100.1:4711", "198.51.100.1"},
		{"IPv6 hop with a port", "10.0.0.2:5000", "[2001:db8::5]:443", "2001:db8::5"},
		{"trusted hop with a port is walked past", "10.0.0.2:5000", "198.51.100.1, 10.1.1.1:80", "198.51.100.1"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		if c.forwarded != "" {
			r.Header.Set("X-Forwarded-For", c.forwarded)
		}
		if got := s.clientIP(r); got != netip.MustParseAddr(c.want) {
			t.Errorf("%s: clientIP = %v, want %s", c.name, got, c.want)
		}
	}
}
