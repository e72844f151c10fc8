package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// runNamespaces dispatches `eligo namespaces list|release|transfer|verify`,
// the operator's hold on slug namespaces
// (docs/limits.md#slug-namespaces). Each change is one transaction with
// its audit event.
// Flags may come before or after the namespace, and every flag and
// argument is checked before the database is opened.
func runNamespaces(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs, dbURL, usage := subcommandFlags("namespaces", "list|release|transfer|verify", args, stdout, stderr)
	if fs == nil {
		return usage
	}
	actor := func() *string {
		return fs.String("actor", envOr("USER", "operator"), "who makes the change, for the audit event (default $USER)")
	}
	one := []string{"<namespace>"}
	var (
		operands []string
		prepare  func(operands []string) (func(*store.Store) error, error)
	)
	switch args[0] {
	case "list":
		tenant := fs.String("tenant", "", "only this tenant's namespaces")
		ns := addNamespaceFlags(fs)
		prepare = func([]string) (func(*store.Store) error, error) {
			reserved, err := ns.reservedList()
			if err != nil {
				return nil, err
			}
			if reserved == nil {
				reserved = publish.DefaultReservedNamespaces()
			}
			return func(st *store.Store) error {
				recs, err := st.Namespaces(ctx, *tenant)
				if err != nil {
					return err
				}
				return printNamespaces(stdout, recs, reserved)
			}, nil
		}
	case "release":
		operands = one
		who := actor()
		withdraw := fs.Bool("withdraw", false, "also make the former owner's public rulesets and rulebooks under the namespace private")
		prepare = func(got []string) (func(*store.Store) error, error) {
			if err := checkNamespace(got[0]); err != nil {
				return nil, err
			}
			return func(st *store.Store) error {
				out, err := st.ReleaseNamespace(ctx, got[0], *who, *withdraw)
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("namespace %q is owned by no tenant; nothing to release", got[0])
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "released %s (was tenant %s's%s)%s\n", got[0], out.Before.TenantID, verifiedNote(out.Before), withdrawnNote(out))
				return nil
			}, nil
		}
	case "transfer":
		operands = one
		to := fs.String("to", "", "tenant to make the namespace's owner (it must exist)")
		who := actor()
		withdraw := fs.Bool("withdraw", false, "also make the former owner's public rulesets and rulebooks under the namespace private")
		prepare = func(got []string) (func(*store.Store) error, error) {
			if err := checkNamespace(got[0]); err != nil {
				return nil, err
			}
			if err := checkTenant(*to); err != nil {
				return nil, fmt.Errorf("--to: %w", err)
			}
			if got[0] == strings.TrimSuffix(publish.DefaultReservedNamespace, "/") {
				return nil, fmt.Errorf("%q is the service's own namespace; no tenant may own it", got[0])
			}
			return func(st *store.Store) error {
				out, err := st.TransferNamespace(ctx, got[0], *to, *who, *withdraw)
				if errors.Is(err, store.ErrNoTenant) {
					return fmt.Errorf("no tenant %q: create it first (eligo keys create --tenant %s ...)", *to, *to)
				}
				if err != nil {
					return err
				}
				from := "no tenant's"
				if out.Before.TenantID != "" {
					from = "tenant " + out.Before.TenantID + "'s" + verifiedNote(out.Before)
				}
				fmt.Fprintf(stdout, "transferred %s to tenant %s, unverified (was %s)%s\n", got[0], *to, from, withdrawnNote(out))
				return nil
			}, nil
		}
	case "verify":
		operands = one
		who := actor()
		revoke := fs.Bool("revoke", false, "take the verification away instead")
		prepare = func(got []string) (func(*store.Store) error, error) {
			if err := checkNamespace(got[0]); err != nil {
				return nil, err
			}
			return func(st *store.Store) error {
				rec, err := st.VerifyNamespace(ctx, got[0], *who, !*revoke)
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("namespace %q is owned by no tenant; assign it first (eligo namespaces transfer %s --to TENANT)", got[0], got[0])
				}
				if err != nil {
					return err
				}
				state := "verified"
				if *revoke {
					state = "unverified"
				}
				fmt.Fprintf(stdout, "%s %s for tenant %s\n", state, rec.Namespace, rec.TenantID)
				return nil
			}, nil
		}
	default:
		return usage
	}
	return runStoreWork(ctx, fs, "namespaces "+args[0], args[1:], dbURL, operands, prepare)
}

// verifiedNote says that a namespace was verified, when it was.
func verifiedNote(rec store.NamespaceRecord) string {
	if rec.VerifiedAt == nil {
		return ""
	}
	return ", verified"
}

// withdrawnNote says how much public content a change made private.
func withdrawnNote(out store.NamespaceChanged) string {
	if out.Withdrawn == 0 {
		return ""
	}
	return fmt.Sprintf("; %d public rulesets and rulebooks made private", out.Withdrawn)
}

// printNamespaces writes the owned namespaces as a table; RESERVED marks
// one on the reserved list, which its owner holds only by an operator's
// transfer or from before the list.
func printNamespaces(w io.Writer, recs []store.NamespaceRecord, reserved []string) error {
	isReserved := make(map[string]bool, len(reserved))
	for _, ns := range reserved {
		isReserved[ns] = true
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tTENANT\tCLAIMED\tVERIFIED\tVERIFIED_BY\tSLUGS\tRESERVED")
	for _, r := range recs {
		verified := "no"
		if r.VerifiedAt != nil {
			verified = r.VerifiedAt.UTC().Format(time.RFC3339)
		}
		by := r.VerifiedBy
		if by == "" {
			by = "-"
		}
		res := "no"
		if isReserved[r.Namespace] {
			res = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Namespace, r.TenantID, r.ClaimedAt.UTC().Format(time.RFC3339),
			verified, by, r.Slugs, res)
	}
	return tw.Flush()
}
