package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// eligo runs the CLI in-process with args and returns its exit code and
// outputs.
func eligo(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestKeysCreateListRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	st := store.New(pool)

	code, out, errOut := eligo(t, "keys", "create", "--database-url", dbURL,
		"--tenant", "acme", "--scopes", "decide,rulesets:read", "--tier", "starter", "--expires", "2099-01-01", "--name", "ci")
	if code != 0 {
		t.Fatalf("keys create exited %d: %s", code, errOut)
	}
	key := strings.TrimSpace(out)
	if strings.Count(out, "\n") != 1 || strings.ContainsAny(key, " \t") {
		t.Fatalf("keys create must print the key alone on stdout, got %q", out)
	}
	if !strings.Contains(errOut, "created tenant acme") {
		t.Errorf("first key of a tenant should report the tenant's creation: %q", errOut)
	}
	p, err := auth.NewAuthenticator(st, nil, 0).Authenticate(ctx, key)
	if err != nil {
		t.Fatalf("the printed key does not authenticate: %v", err)
	}
	if p.TenantID != "acme" || p.Tier != auth.TierStarter || !p.Has(auth.ScopeDecide) || !p.Has(auth.ScopeRulesetsRead) || p.Has(auth.ScopeRulesetsWrite) {
		t.Fatalf("principal %+v", p)
	}

	// The raw key, and its secret part, appear in no column of any table.
	secret := key[strings.LastIndex(key, "_")+1:]
	for _, table := range []string{"tenants", "api_keys", "audit_events", "schema_migrations"} {
		var rows string
		if err := pool.QueryRow(ctx, `SELECT COALESCE(string_agg(to_jsonb(t)::text, E'\n'), '') FROM `+table+` t`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(rows, key) || strings.Contains(rows, secret) {
			t.Fatalf("table %s holds the raw key: %s", table, rows)
		}
	}
	var hashed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE key_hash = sha256(convert_to($1, 'UTF8'))`, key).Scan(&hashed); err != nil {
		t.Fatal(err)
	}
	if hashed != 1 {
		t.Fatalf("no row holds the SHA-256 of the key")
	}

	code, out, errOut = eligo(t, "keys", "list", "--database-url", dbURL, "--tenant", "acme")
	prefix, _ := auth.NormalizePrefix(key)
	if code != 0 || !strings.Contains(out, prefix) || !strings.Contains(out, "active") || strings.Contains(out, secret) {
		t.Fatalf("keys list exited %d: %s %s", code, out, errOut)
	}

	// The whole key is refused: on a command line it would stay in the
	// shell's history and the process list.
	code, out, errOut = eligo(t, "keys", "revoke", "--database-url", dbURL, key)
	if code == 0 || !strings.Contains(errOut, "only the key's prefix") || strings.Contains(errOut, key) {
		t.Fatalf("keys revoke with the whole key exited %d: %s %s", code, out, errOut)
	}
	if _, err := auth.NewAuthenticator(st, nil, 0).Authenticate(ctx, key); err != nil {
		t.Fatalf("a refused revoke revoked the key: %v", err)
	}
	code, out, errOut = eligo(t, "keys", "revoke", "--database-url", dbURL, "elg_"+prefix)
	if code != 0 || !strings.Contains(out, "revoked "+prefix) {
		t.Fatalf("keys revoke exited %d: %s %s", code, out, errOut)
	}
	if _, err := auth.NewAuthenticator(st, nil, 0).Authenticate(ctx, key); err != auth.ErrInvalidKey {
		t.Fatalf("revoked key authenticates: %v", err)
	}
	code, out, _ = eligo(t, "keys", "list", "--database-url", dbURL)
	if code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("keys list after revoke: %s", out)
	}
	events, err := st.AuditEvents(ctx, "acme")
	if err != nil || len(events) != 2 || events[0].Kind != "api_key_created" || events[1].Kind != "api_key_revoked" {
		t.Fatalf("audit events %+v, %v", events, err)
	}
}

func TestKeysCreateRejectsBadFlags(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	for name, tc := range map[string]struct {
		args    []string
		wantErr string
	}{
		"unknown scope":   {[]string{"--tenant", "acme", "--scopes", "decide,everything", "--tier", "free"}, "unknown scope"},
		"unknown tier":    {[]string{"--tenant", "acme", "--scopes", "decide", "--tier", "gold"}, "unknown tier"},
		"bad tenant":      {[]string{"--tenant", "Acme Corp", "--scopes", "decide", "--tier", "free"}, "--tenant"},
		"bad expiry":      {[]string{"--tenant", "acme", "--scopes", "decide", "--tier", "free", "--expires", "next year"}, "want YYYY-MM-DD"},
		"past date":       {[]string{"--tenant", "acme", "--scopes", "decide", "--tier", "free", "--expires", "2020-01-01"}, "not in the future"},
		"past instant":    {[]string{"--tenant", "acme", "--scopes", "decide", "--tier", "free", "--expires", "2020-01-01T12:00:00+02:00"}, "not in the future"},
		"no scopes given": {[]string{"--tenant", "acme", "--tier", "free"}, "no scopes"},
		"stray argument":  {[]string{"--tenant", "acme", "--scopes", "decide", "--tier", "free", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := eligo(t, append([]string{"keys", "create", "--database-url", dbURL}, tc.args...)...)
		if code == 0 || out != "" || !strings.Contains(errOut, tc.wantErr) {
			t.Errorf("%s: exited %d with stdout %q, stderr %q; want a failure naming %q", name, code, out, errOut, tc.wantErr)
		}
	}
	// None of the refused calls stored anything.
	keys, err := store.New(pool).ListAPIKeys(context.Background(), "")
	if err != nil || len(keys) != 0 {
		t.Fatalf("keys after refused creates: %v, %v", keys, err)
	}
}

// TestKeyRequestExpiry pins the boundary: an expiry must lie strictly after
// the present.
func TestKeyRequestExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for expires, wantOK := range map[string]bool{
		"2026-11-21":                false, // UTC midnight, this morning
		"2026-11-22":                true,
		"2026-11-21T12:00:00Z":      false, // now is not the future
		"2026-11-21T12:00:01Z":      true,
		"2026-11-21T13:00:00+02:00": false, // 11:00 UTC
		"2026-11-21T13:00:01+01:00": true,
		"":                          true, // no expiry
	} {
		req, err := keyRequest("acme", "decide", "free", expires, "", now)
		if (err == nil) != wantOK {
			t.Errorf("--expires %q: err = %v, want ok = %v", expires, err, wantOK)
		}
		if err == nil && expires != "" && (req.ExpiresAt == nil || !req.ExpiresAt.After(now)) {
			t.Errorf("--expires %q: ExpiresAt = %v", expires, req.ExpiresAt)
		}
	}
}

// TestKeysRevokeTwice revokes a key, then revokes it again with its flags
// after the prefix: the second call says so, succeeds and writes no second
// audit event.
func TestKeysRevokeTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	st := store.New(pool)
	key, _, _, err := auth.IssueKey(ctx, st, auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree})
	if err != nil {
		t.Fatal(err)
	}
	prefix, _ := auth.NormalizePrefix(key)

	code, out, errOut := eligo(t, "keys", "revoke", prefix, "--database-url", dbURL)
	if code != 0 || out != "revoked "+prefix+" (tenant acme)\n" {
		t.Fatalf("first revoke exited %d: %q %s", code, out, errOut)
	}
	rec, err := st.APIKeyByPrefix(ctx, prefix)
	if err != nil || rec.RevokedAt == nil {
		t.Fatalf("after revoke: %+v, %v", rec, err)
	}
	code, out, errOut = eligo(t, "keys", "revoke", "elg_"+prefix, "--database-url", dbURL)
	want := prefix + " (tenant acme) was already revoked at " + rec.RevokedAt.UTC().Format(time.RFC3339) + "; nothing changed\n"
	if code != 0 || out != want {
		t.Fatalf("second revoke exited %d: %q %s; want %q", code, out, errOut, want)
	}
	events, err := st.AuditEvents(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if !slices.Equal(kinds, []string{"api_key_created", "api_key_revoked"}) {
		t.Fatalf("audit kinds %v, want one created and one revoked", kinds)
	}
}

// TestKeysArguments runs every keys subcommand with its flags before and
// after its positional arguments, and with arguments it does not take.
func TestKeysArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	st := store.New(pool)
	var prefixes []string
	for range 2 {
		key, _, _, err := auth.IssueKey(ctx, st, auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := auth.NormalizePrefix(key)
		prefixes = append(prefixes, p)
	}

	accepted := []struct {
		args    []string
		wantOut string
	}{
		{[]string{"create", "--tenant", "beta", "--scopes", "decide", "--tier", "free", "--database-url", dbURL}, "elg_"},
		{[]string{"list", "--tenant", "acme", "--database-url", dbURL}, prefixes[0]},
		{[]string{"revoke", "--database-url", dbURL, prefixes[0]}, "revoked " + prefixes[0]},
		{[]string{"revoke", prefixes[1], "--database-url", dbURL}, "revoked " + prefixes[1]},
		{[]string{"revoke", "--database-url", dbURL, "--", prefixes[1]}, "already revoked"},
	}
	for _, tc := range accepted {
		code, out, errOut := eligo(t, append([]string{"keys"}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.wantOut) {
			t.Errorf("keys %v exited %d: %q %s; want stdout holding %q", tc.args, code, out, errOut, tc.wantOut)
		}
	}

	refused := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"list", "extra", "--database-url", dbURL}, `unexpected argument "extra"`},
		{[]string{"list", "--database-url", dbURL, "extra"}, `unexpected argument "extra"`},
		{[]string{"revoke", "--database-url", dbURL}, "usage: eligo keys revoke <prefix>"},
		{[]string{"revoke", prefixes[0], prefixes[1], "--database-url", dbURL}, "unexpected argument " + strconv.Quote(prefixes[1])},
		{[]string{"revoke", "not-a-key", "--database-url", dbURL}, "not a key prefix"},
		{[]string{"rotate", "--database-url", dbURL}, "usage: eligo keys create|list|revoke"},
	}
	for _, tc := range refused {
		code, out, errOut := eligo(t, append([]string{"keys"}, tc.args...)...)
		if code == 0 || out != "" || !strings.Contains(errOut, tc.wantErr) {
			t.Errorf("keys %v exited %d: %q %q; want a failure naming %q", tc.args, code, out, errOut, tc.wantErr)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args           []string
		wantPositional []string
		wantName       string
	}{
		{nil, nil, ""},
		{[]string{"a", "b"}, []string{"a", "b"}, ""},
		{[]string{"--name", "n", "a"}, []string{"a"}, "n"},
		{[]string{"a", "--name", "n"}, []string{"a"}, "n"},
		{[]string{"a", "--name=n", "b"}, []string{"a", "b"}, "n"},
		{[]string{"a", "--", "--name", "n"}, []string{"a", "--name", "n"}, ""},
		{[]string{"--name", "--", "a"}, []string{"a"}, "--"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		name := fs.String("name", "", "")
		got, err := parseInterspersed(fs, tc.args)
		if err != nil || !slices.Equal(got, tc.wantPositional) || *name != tc.wantName {
			t.Errorf("parseInterspersed(%q) = %q, name %q, %v; want %q, name %q", tc.args, got, *name, err, tc.wantPositional, tc.wantName)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseInterspersed(fs, []string{"a", "--unknown"}); err == nil {
		t.Error("an unknown flag after a positional argument was accepted")
	}
}

func TestMigrateCommandIsIdempotent(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewEmpty(t).Config().ConnString()
	code, out, errOut := eligo(t, "migrate", "--database-url", dbURL)
	if code != 0 || !strings.Contains(out, "applied 0001_foundation.sql") {
		t.Fatalf("first migrate exited %d: %s %s", code, out, errOut)
	}
	code, out, errOut = eligo(t, "migrate", "--database-url", dbURL)
	if code != 0 || strings.TrimSpace(out) != "schema is up to date" {
		t.Fatalf("second migrate exited %d: %q %s", code, out, errOut)
	}
}
