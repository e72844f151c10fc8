package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/eligo/eligo/api/auth"
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
	dbURL := storetest.New(t).Config().ConnString()
	for name, args := range map[string][]string{
		"unknown scope":   {"--tenant", "acme", "--scopes", "decide,everything", "--tier", "free"},
		"unknown tier":    {"--tenant", "acme", "--scopes", "decide", "--tier", "gold"},
		"bad tenant":      {"--tenant", "Acme Corp", "--scopes", "decide", "--tier", "free"},
		"bad expiry":      {"--tenant", "acme", "--scopes", "decide", "--tier", "free", "--expires", "next year"},
		"no scopes given": {"--tenant", "acme", "--tier", "free"},
	} {
		code, out, _ := eligo(t, append([]string{"keys", "create", "--database-url", dbURL}, args...)...)
		if code == 0 || out != "" {
			t.Errorf("%s: exited %d with stdout %q", name, code, out)
		}
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
