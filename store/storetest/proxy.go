package storetest

import (
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Outage is a TCP proxy between a pool and its database server, for tests
// of what the code does while the database is unreachable: Cut stops
// accepting connections and drops every live one, as a server that goes
// away does; Restore listens again on the same address.
type Outage struct {
	t      testing.TB
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
	wg     sync.WaitGroup
}

// Proxied returns a second pool on direct's database whose connections go
// through an Outage, and the Outage. Both are closed when the test ends.
func Proxied(t testing.TB, direct *pgxpool.Pool) (*pgxpool.Pool, *Outage) {
	t.Helper()
	cc := direct.Config().ConnConfig
	o := &Outage{t: t, target: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))), addr: "127.0.0.1:0"}
	o.Restore()
	t.Cleanup(o.Cut)
	cfg := direct.Config().Copy()
	host, port, _ := net.SplitHostPort(o.addr)
	p, _ := strconv.Atoi(port)
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = host, uint16(p)
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("storetest: proxied pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, o
}

// Restore accepts connections again, on the address the pool dials.
func (o *Outage) Restore() {
	o.t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ln != nil {
		return
	}
	var err error
	// A port just closed may take a moment to be free again.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if o.ln, err = net.Listen("tcp", o.addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		o.t.Fatalf("storetest: proxy listen: %v", err)
	}
	o.addr = o.ln.Addr().String()
	ln := o.ln
	o.wg.Go(func() { o.accept(ln) })
}

func (o *Outage) accept(ln net.Listener) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", o.target)
		if err != nil {
			in.Close()
			continue
		}
		o.mu.Lock()
		o.conns = append(o.conns, in, out)
		o.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); out.Close() }()
		go func() { _, _ = io.Copy(in, out); in.Close() }()
	}
}

// Cut stops accepting connections and drops every live one.
func (o *Outage) Cut() {
	o.mu.Lock()
	ln := o.ln
	o.ln = nil
	o.mu.Unlock()
	if ln == nil {
		return
	}
	ln.Close()
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.conns {
		c.Close()
	}
	o.conns = nil
}
