package proxy

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientIPBelievesOnlyTrustedProxies(t *testing.T) {
	t.Parallel()
	trusted := Trusted{netip.MustParsePrefix("10.0.0.0/8")}
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
		if got := trusted.ClientIP(r); got != netip.MustParseAddr(c.want) {
			t.Errorf("%s: clientIP = %v, want %s", c.name, got, c.want)
		}
	}
}

// TestSecureBelievesOnlyTrustedProxies: X-Forwarded-Proto counts only from
// a trusted proxy, and only its last value (the one that proxy wrote).
func TestSecureBelievesOnlyTrustedProxies(t *testing.T) {
	t.Parallel()
	trusted := Trusted{netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		name, peer, proto string
		want              bool
	}{
		{"plain, direct", "203.0.113.9:5000", "", false},
		{"a caller's own header", "203.0.113.9:5000", "https", false},
		{"a trusted proxy says https", "10.0.0.2:5000", "https", true},
		{"a trusted proxy says http", "10.0.0.2:5000", "http", false},
		{"a caller's https before the proxy's http", "10.0.0.2:5000", "https, http", false},
		{"unreadable peer", "nonsense", "https", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr, r.Host = c.peer, "eligo.example"
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if got := trusted.Secure(r); got != c.want {
			t.Errorf("%s: Secure = %v, want %v", c.name, got, c.want)
		}
		want := "http://eligo.example"
		if c.want {
			want = "https://eligo.example"
		}
		if got := trusted.Origin(r); got != want {
			t.Errorf("%s: Origin = %q, want %q", c.name, got, want)
		}
	}
}
