// Package connlimit bounds the connections a server holds: in all, per
// client address, and a small reserve beyond the caps in which a request
// is answered with a refusal (or a health probe served) and the
// connection closed. It works below HTTP, on the listener; the server's
// middleware asks Overflowed to learn that a request came in over the
// caps and writes the refusal itself.
package connlimit

import (
	"context"
	"net"
	"net/netip"
	"sync"
)

// Limits bounds the connections a server holds, so that clients that
// open connections and never finish a request cannot exhaust the
// process's file descriptors and starve everyone else, health probes
// included.
type Limits struct {
	// Max is the number of connections served normally; default 4096.
	Max int
	// PerClient is the number of connections one client address may hold
	// among them; default 256. Peers in Exempt are not counted per address.
	PerClient int
	// Reserve is the number of connections accepted beyond the caps to
	// answer them: a probe (/healthz, /readyz) is served, anything else
	// gets 503 too_many_connections and the connection is closed; past
	// Reserve a new connection is closed at once. Default 64.
	Reserve int
	// Exempt lists the networks of peers not capped per address: the
	// trusted reverse proxies, through which every client arrives from the
	// same few addresses.
	Exempt []netip.Prefix
}

// Listener returns ln with limits applied to what it accepts. Serve it
// with an http.Server whose ConnContext is ConnContext, so that the
// middleware knows which connections are over the caps.
func Listener(ln net.Listener, limits Limits) net.Listener {
	if limits.Max <= 0 {
		limits.Max = 4096
	}
	if limits.PerClient <= 0 {
		limits.PerClient = 256
	}
	if limits.Reserve <= 0 {
		limits.Reserve = 64
	}
	return &limitedListener{Listener: ln, limits: limits, perClient: map[netip.Addr]int{}}
}

// limitedListener counts the connections it has accepted and not yet seen
// closed: served ones in total and by client address, and overflow ones.
type limitedListener struct {
	net.Listener
	limits Limits

	mu        sync.Mutex
	served    int
	perClient map[netip.Addr]int
	overflow  int
}

// Accept returns the next connection, marked as overflow when it is over
// a cap; connections beyond the reserve are closed without a word.
func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if counted := l.admit(c); counted != nil {
			return counted, nil
		}
		_ = c.Close()
	}
}

// admit counts c and wraps it, or returns nil when even the reserve is
// full.
func (l *limitedListener) admit(c net.Conn) *countedConn {
	addr := peerAddr(c)
	capped := addr.IsValid() && !l.exempt(addr)
	l.mu.Lock()
	defer l.mu.Unlock()
	over := l.served >= l.limits.Max || (capped && l.perClient[addr] >= l.limits.PerClient)
	switch {
	case over && l.overflow >= l.limits.Reserve:
		return nil
	case over:
		l.overflow++
	default:
		l.served++
		if capped {
			l.perClient[addr]++
		}
	}
	return &countedConn{Conn: c, listener: l, addr: addr, capped: capped, overflow: over}
}

func (l *limitedListener) exempt(addr netip.Addr) bool {
	for _, p := range l.limits.Exempt {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// release uncounts a closed connection.
func (l *limitedListener) release(c *countedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.overflow {
		l.overflow--
		return
	}
	l.served--
	if c.capped {
		if l.perClient[c.addr]--; l.perClient[c.addr] <= 0 {
			delete(l.perClient, c.addr)
		}
	}
}

// countedConn is an accepted connection that uncounts itself when closed.
type countedConn struct {
	net.Conn
	listener *limitedListener
	addr     netip.Addr
	capped   bool
	overflow bool
	once     sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.listener.release(c) })
	return c.Conn.Close()
}

// peerAddr is the IP address of c's remote end, unmapped; the zero Addr
// when it is not TCP.
func peerAddr(c net.Conn) netip.Addr {
	if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// overflowKey marks the context of a connection accepted over the caps.
type overflowKey struct{}

// ConnContext is the http.Server hook that tells the middleware which
// connections Listener accepted over its caps.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if counted, ok := c.(*countedConn); ok && counted.overflow {
		return context.WithValue(ctx, overflowKey{}, true)
	}
	return ctx
}

// Overflowed reports whether ctx is a request's on a connection accepted
// over the caps (see ConnContext): its request gets a refusal, or, for a
// health probe, an answer, and the connection is closed after it.
func Overflowed(ctx context.Context) bool {
	over, _ := ctx.Value(overflowKey{}).(bool)
	return over
}
