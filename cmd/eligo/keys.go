package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/eligo/eligo/api/auth"
	"github.com/eligo/eligo/store"
)

// runKeys dispatches `eligo keys create|list|revoke`.
func runKeys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := errors.New("usage: eligo keys create|list|revoke [flags]")
	if len(args) == 0 {
		return usage
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	var run func(*store.Store) error
	switch args[0] {
	case "create":
		tenant := fs.String("tenant", "", "tenant id (lower-case letters, digits, - and _); created if new")
		scopes := fs.String("scopes", "", "comma-separated scopes, or all")
		tier := fs.String("tier", "", "free, starter, pro or internal")
		expires := fs.String("expires", "", "expiry as YYYY-MM-DD (UTC midnight) or RFC 3339; none by default")
		name := fs.String("name", "", "label shown in listings")
		run = func(st *store.Store) error {
			req, err := keyRequest(*tenant, *scopes, *tier, *expires, *name)
			if err != nil {
				return err
			}
			text, rec, created, err := auth.IssueKey(ctx, st, req)
			if err != nil {
				return err
			}
			if created {
				fmt.Fprintf(stderr, "created tenant %s\n", rec.TenantID)
			}
			fmt.Fprintf(stderr, "created key %s for tenant %s; it is shown once, below\n", rec.Prefix, rec.TenantID)
			fmt.Fprintln(stdout, text)
			return nil
		}
	case "list":
		tenant := fs.String("tenant", "", "only this tenant's keys")
		run = func(st *store.Store) error {
			keys, err := st.ListAPIKeys(ctx, *tenant)
			if err != nil {
				return err
			}
			return printKeys(stdout, keys)
		}
	case "revoke":
		run = func(st *store.Store) error {
			if fs.NArg() != 1 {
				return errors.New("usage: eligo keys revoke <prefix>")
			}
			prefix, err := auth.NormalizePrefix(fs.Arg(0))
			if err != nil {
				return err
			}
			rec, err := st.RevokeAPIKey(ctx, prefix)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "revoked %s (tenant %s)\n", rec.Prefix, rec.TenantID)
			return nil
		}
	default:
		return usage
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	pool, err := store.Open(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	return run(store.New(pool))
}

var tenantID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// keyRequest validates the flags of `keys create`.
func keyRequest(tenant, scopes, tier, expires, name string) (auth.KeyRequest, error) {
	if !tenantID.MatchString(tenant) {
		return auth.KeyRequest{}, fmt.Errorf("--tenant %q: use 1-63 lower-case letters, digits, - or _", tenant)
	}
	sc, err := auth.ParseScopes(scopes)
	if err != nil {
		return auth.KeyRequest{}, fmt.Errorf("--scopes: %w", err)
	}
	tr, err := auth.ParseTier(tier)
	if err != nil {
		return auth.KeyRequest{}, fmt.Errorf("--tier: %w", err)
	}
	req := auth.KeyRequest{TenantID: tenant, Name: name, Scopes: sc, Tier: tr}
	if expires != "" {
		t, err := time.Parse(time.DateOnly, expires)
		if err != nil {
			t, err = time.Parse(time.RFC3339, expires)
		}
		if err != nil {
			return auth.KeyRequest{}, fmt.Errorf("--expires %q: want YYYY-MM-DD or RFC 3339", expires)
		}
		req.ExpiresAt = &t
	}
	return req, nil
}

func printKeys(w io.Writer, keys []store.APIKey) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PREFIX\tTENANT\tNAME\tTIER\tSCOPES\tCREATED\tEXPIRES\tSTATE")
	for _, k := range keys {
		expires, state := "never", "active"
		if k.ExpiresAt != nil {
			expires = k.ExpiresAt.UTC().Format(time.RFC3339)
			if !time.Now().Before(*k.ExpiresAt) {
				state = "expired"
			}
		}
		if k.RevokedAt != nil {
			state = "revoked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.Prefix, k.TenantID, k.Name, k.Tier,
			strings.Join(k.Scopes, ","), k.CreatedAt.UTC().Format(time.RFC3339), expires, state)
	}
	return tw.Flush()
}
