package routes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// tcpProxy forwards every connection it accepts to target. close stops
// accepting and cuts every live connection, as a database server that goes
// away does.
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

// startProxy listens on addr ("127.0.0.1:0" for a free port) and forwards
// to target until close.
func startProxy(t *testing.T, addr, target string) *tcpProxy {
	t.Helper()
	var ln net.Listener
	var err error
	// The port of a proxy just closed may take a moment to be free again.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *tcpProxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); out.Close() }()
		go func() { _, _ = io.Copy(in, out); in.Close() }()
	}
}

func (p *tcpProxy) close() {
	p.ln.Close()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestDecideAnswersThroughADatabaseOutage serves the whole interface in
// spool mode over a database reached through a TCP proxy, cuts the proxy
// (every connection dropped, none accepted) while /decide runs from eight
// connections, and finds every decision answered 200 during the outage
// (anonymous, unmetered calls on a ruleset already loaded need no
// database: the record goes to the spool), /readyz saying the log's
// database is unavailable with records spooled, and, once the proxy is
// back and the server closed, every answered decision in the table.
func TestDecideAnswersThroughADatabaseOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct := storetest.New(t)
	target := net.JoinHostPort(direct.Config().ConnConfig.Host, strconv.Itoa(int(direct.Config().ConnConfig.Port)))
	proxy := startProxy(t, "127.0.0.1:0", target)
	pcfg := direct.Config().Copy()
	proxyAddr := proxy.ln.Addr().(*net.TCPAddr)
	pcfg.ConnConfig.Host, pcfg.ConnConfig.Port = "127.0.0.1", uint16(proxyAddr.Port)
	pcfg.ConnConfig.ConnectTimeout = 2 * time.Second
	proxied, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxied.Close)

	quiet := slog.New(slog.DiscardHandler)
	cfg := Config{
		API:         api.Config{Unmetered: true, Logger: quiet},
		Catalog:     catalog.Config{RefTTL: time.Hour},
		DecisionLog: decisionlog.Config{Spool: decisionlog.SpoolConfig{Dir: t.TempDir(), ShipInterval: 20 * time.Millisecond}},
	}
	sv, err := NewServices(store.New(proxied), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := NewWith(cfg, sv)
	srv := httptest.NewServer(s.Handler())
	closed := false
	t.Cleanup(func() {
		if !closed {
			srv.Close()
			_ = s.Close(context.Background())
		}
	})
	if _, err := sv.Publisher.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules",
		Source: apitest.LeaveRules("12"), Slug: "acme/leave", Public: true, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	decide := func(client *http.Client, i int) (status int, body, id string) {
		res, err := client.Post(srv.URL+api.RootPath+"/decide", "application/json", strings.NewReader(
			fmt.Sprintf(`{"ruleset_id":"acme/leave","field_values":{"employment.months":%d}}`, i%40)))
		if err != nil {
			return 0, err.Error(), ""
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var env struct {
			DecisionID string `json:"decision_id"`
		}
		_ = json.Unmarshal(raw, &env)
		return res.StatusCode, string(raw), env.DecisionID
	}
	var answered []string
	for i := range 40 { // load the ruleset, and fill the decision cache for half the inputs
		if status, body, id := decide(srv.Client(), i); status != http.StatusOK {
			t.Fatalf("before the outage: %d %s", status, body)
		} else {
			answered = append(answered, id)
		}
	}

	proxy.close()
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	for w := range 8 {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}}
			for i := range 60 {
				status, body, id := decide(client, w*60+i)
				mu.Lock()
				if status == http.StatusOK {
					answered = append(answered, id)
				} else {
					failures = append(failures, fmt.Sprintf("%d %s", status, body))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d decisions during the outage failed, e.g. %s", len(failures), 480, failures[0])
	}
	var ready struct {
		Status      string             `json:"status"`
		DecisionLog decisionlog.Status `json:"decision_log"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := srv.Client().Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&ready)
		res.Body.Close()
		if err == nil && ready.DecisionLog.State == "database_unavailable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz during the outage: %+v, %v", ready, err)
		}
	}
	if ready.Status != "unavailable" || ready.DecisionLog.Mode != decisionlog.ModeSpool || ready.DecisionLog.Spool == nil ||
		ready.DecisionLog.Spool.Bytes == 0 || ready.DecisionLog.Spool.OldestAgeSeconds <= 0 {
		t.Errorf("/readyz during the outage: %+v %+v", ready, ready.DecisionLog.Spool)
	}

	startProxy(t, proxyAddr.String(), target)
	srv.Close()
	closing, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	closed = true
	if err := s.Close(closing); err != nil {
		t.Fatal(err)
	}
	missing, err := store.New(direct).MissingDecisionIDs(ctx, answered)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d decisions answered 200 are not in the table after the outage, e.g. %s", len(missing), len(answered), missing[0])
	}
}
