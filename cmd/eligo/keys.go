package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/store"
)

// runKeys dispatches `eligo keys create|list|revoke`. Flags may come before
// or after the positional arguments, and every flag and argument is checked
// before the database is opened.
//
// Revoking a key that is already revoked changes nothing and writes no audit
// event; it reports when the key was revoked and exits 0, so that a script
// making sure a key is dead can run again.
func runKeys(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs, dbURL, usage := subcommandFlags("keys", "create|list|revoke", args, stdout, stderr)
	if fs == nil {
		return usage
	}
	var (
		// operands names the positional arguments the subcommand takes,
		// one word each, for its usage line.
		operands []string
		// prepare checks the parsed flags and positional arguments and
		// returns the work to do with the database.
		prepare func(operands []string) (func(*store.Store) error, error)
	)
	switch args[0] {
	case "create":
		tenant := fs.String("tenant", "", "tenant id (lower-case letters, digits, - and _); created if new")
		scopes := fs.String("scopes", "", "comma-separated scopes, or all")
		tier := fs.String("tier", "", "free, starter, pro or internal")
		expires := fs.String("expires", "", "expiry in the future, as YYYY-MM-DD (UTC midnight) or RFC 3339; none by default")
		name := fs.String("name", "", "label shown in listings")
		prepare = func([]string) (func(*store.Store) error, error) {
			req, err := keyRequest(*tenant, *scopes, *tier, *expires, *name, clk.Now())
			if err != nil {
				return nil, err
			}
			return func(st *store.Store) error {
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
			}, nil
		}
	case "list":
		tenant := fs.String("tenant", "", "only this tenant's keys")
		prepare = func([]string) (func(*store.Store) error, error) {
			return func(st *store.Store) error {
				keys, err := st.ListAPIKeys(ctx, *tenant)
				if err != nil {
					return err
				}
				return printKeys(stdout, keys, clk.Now())
			}, nil
		}
	case "revoke":
		operands = []string{"<prefix>"}
		prepare = func(operands []string) (func(*store.Store) error, error) {
			if looksLikeSecret(operands[0]) {
				// The secret would stay in the shell's history and in
				// the process list of anyone on the machine.
				return nil, errors.New("pass only the key's prefix (elg_xxxxxxxx, as `eligo keys list` shows it), never the whole key")
			}
			prefix, err := auth.NormalizePrefix(operands[0])
			if err != nil {
				return nil, err
			}
			return func(st *store.Store) error {
				rec, err := st.RevokeAPIKey(ctx, prefix)
				if errors.Is(err, store.ErrAlreadyRevoked) {
					fmt.Fprintf(stdout, "%s (tenant %s) was already revoked at %s; nothing changed\n",
						rec.Prefix, rec.TenantID, rec.RevokedAt.UTC().Format(time.RFC3339))
					return nil
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "revoked %s (tenant %s)\n", rec.Prefix, rec.TenantID)
				return nil
			}, nil
		}
	default:
		return usage
	}
	return runStoreWork(ctx, fs, "keys "+args[0], args[1:], dbURL, operands, prepare)
}

var tenantID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// checkTenant refuses a --tenant value that is not a tenant id.
func checkTenant(tenant string) error {
	if !tenantID.MatchString(tenant) {
		return fmt.Errorf("--tenant %q: use 1-63 lower-case letters, digits, - or _", tenant)
	}
	return nil
}

// keyRequest validates the flags of `keys create`. An expiry must lie after
// now: a key born expired is a typo, never what the operator meant.
func keyRequest(tenant, scopes, tier, expires, name string, now time.Time) (auth.KeyRequest, error) {
	if err := checkTenant(tenant); err != nil {
		return auth.KeyRequest{}, err
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
		if !t.After(now) {
			return auth.KeyRequest{}, fmt.Errorf("--expires %q: %s is not in the future", expires, t.UTC().Format(time.RFC3339))
		}
		req.ExpiresAt = &t
	}
	return req, nil
}

func printKeys(w io.Writer, keys []store.APIKey, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PREFIX\tTENANT\tNAME\tTIER\tSCOPES\tCREATED\tEXPIRES\tSTATE")
	for _, k := range keys {
		expires, state := "never", "active"
		if k.ExpiresAt != nil {
			expires = k.ExpiresAt.UTC().Format(time.RFC3339)
			if !now.Before(*k.ExpiresAt) {
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

// looksLikeSecret reports whether a revoke operand carries more than the
// public prefix: elg_<prefix>_<secret>, or <prefix>_<secret>.
func looksLikeSecret(operand string) bool {
	rest := strings.TrimPrefix(strings.TrimSpace(operand), "elg_")
	_, secret, found := strings.Cut(rest, "_")
	return found && secret != ""
}
