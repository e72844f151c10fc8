// Package proxy reads what a request's reverse proxies say of it, believing
// only the proxies the deployment trusts (--trusted-proxies): the client's
// address from X-Forwarded-For, and whether the client's connection was
// TLS from X-Forwarded-Proto. A header from anyone else is ignored, so a
// caller cannot choose the address it is metered by or pass a plain
// connection off as a secure one.
package proxy

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted is the networks of the reverse proxies whose forwarding headers
// are believed. The zero value trusts none: the TCP peer is the client.
type Trusted []netip.Prefix

// Contains reports whether ip is one of the trusted proxies.
func (t Trusted) Contains(ip netip.Addr) bool {
	for _, p := range t {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ClientIP is the address of the client r came from: the TCP peer, or,
// when the peer is a trusted proxy, the rightmost X-Forwarded-For hop that
// is not one (hops left of it were written by the client and prove
// nothing). A hop that does not parse stops the walk at the last address
// known good. The zero Addr when the peer cannot be read.
func (t Trusted) ClientIP(r *http.Request) netip.Addr {
	peer, ok := Peer(r)
	if !ok {
		return netip.Addr{}
	}
	if !t.Contains(peer) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := parseHop(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer
		}
		hop = hop.Unmap()
		if !t.Contains(hop) {
			return hop
		}
		peer = hop
	}
	return peer
}

// Secure reports whether the client's connection was TLS: r's own, or,
// from a trusted proxy, the last X-Forwarded-Proto value (the one that
// proxy wrote) saying https.
func (t Trusted) Secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	peer, ok := Peer(r)
	if !ok || !t.Contains(peer) {
		return false
	}
	values := strings.Split(strings.Join(r.Header.Values("X-Forwarded-Proto"), ","), ",")
	return strings.EqualFold(strings.TrimSpace(values[len(values)-1]), "https")
}

// Origin is the origin r was addressed to: its scheme (Secure) and its
// Host header.
func (t Trusted) Origin(r *http.Request) string {
	if t.Secure(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// Peer is the address of the connection r came over; ok is false when it
// cannot be read (a handler called without a connection).
func Peer(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return peer.Unmap(), true
}

// parseHop reads one X-Forwarded-For entry: an address, or an address with
// a port ("10.0.0.7:4711", "[2001:db8::5]:443"), which some proxies send.
func parseHop(hop string) (netip.Addr, error) {
	if addr, err := netip.ParseAddr(hop); err == nil {
		return addr, nil
	}
	addrPort, err := netip.ParseAddrPort(hop)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("X-Forwarded-For entry %q: %w", hop, err)
	}
	return addrPort.Addr(), nil
}
