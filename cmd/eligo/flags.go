package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// parseInterspersed parses args with fs, letting flags come before, between
// or after the positional arguments (the flag package alone stops at the
// first positional one), and returns the positional arguments in order.
// After "--" every argument is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// dateArg reads the YYYY-MM-DD value of a --date flag at args[*i+1] and
// moves *i past it, for the commands that scan their arguments by hand.
func dateArg(args []string, i *int) (int64, error) {
	if *i+1 >= len(args) {
		return 0, errors.New("--date needs a YYYY-MM-DD value")
	}
	*i++
	d, ok := value.ParseDate(args[*i])
	if !ok {
		return 0, fmt.Errorf("--date %q is not a YYYY-MM-DD date", args[*i])
	}
	return d, nil
}

// subcommandFlags begins an operator command with subcommands (`eligo
// keys`, `eligo namespaces`): with no subcommand it returns a nil set and
// the usage error; asked for help, a nil set and nil after printing the
// usage; otherwise the subcommand's flag set with --database-url, and the
// usage error for an unknown subcommand to return.
func subcommandFlags(cmd, subcommands string, args []string, stdout, stderr io.Writer) (*flag.FlagSet, *string, error) {
	usage := fmt.Errorf("usage: eligo %s %s [flags]", cmd, subcommands)
	if len(args) == 0 {
		return nil, nil, usage
	}
	if wantsHelp(args[:1]) {
		// Each subcommand's flags: eligo keys create --help.
		fmt.Fprintf(stdout, "%s\n\n(eligo %s SUBCOMMAND --help lists its flags)\n", usage, cmd)
		return nil, nil, nil
	}
	fs := flag.NewFlagSet(cmd+" "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	return fs, dbURL, usage
}

// runStoreWork is the tail of an operator command that works on the
// database (keys, namespaces): it parses args with fs (flags anywhere),
// checks that the positional arguments are operands (one word each, for
// the usage line of cmd, e.g. "keys revoke"), prepares the work, and only
// then opens the database at *dbURL and runs it, so a bad flag or operand
// never needs a database.
func runStoreWork(ctx context.Context, fs *flag.FlagSet, cmd string, args []string, dbURL *string,
	operands []string, prepare func(operands []string) (func(*store.Store) error, error)) error {
	got, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	synopsis := "usage: eligo " + strings.Join(append([]string{cmd}, operands...), " ") + " [flags]"
	switch {
	case len(got) > len(operands):
		return fmt.Errorf("unexpected argument %q; %s", got[len(operands)], synopsis)
	case len(got) < len(operands):
		return errors.New(synopsis)
	}
	work, err := prepare(got)
	if err != nil {
		return err
	}
	pool, err := store.Open(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	return work(store.New(pool))
}

// namespaceFlags are the namespace rules of the commands that publish or
// serve: --reserved-namespaces and --namespace-limits
// (docs/limits.md#slug-namespaces).
type namespaceFlags struct{ reserved, limits *string }

// addNamespaceFlags declares the namespace flags on fs.
func addNamespaceFlags(fs *flag.FlagSet) namespaceFlags {
	return namespaceFlags{
		reserved: fs.String("reserved-namespaces", os.Getenv("ELIGO_RESERVED_NAMESPACES"),
			"comma-separated namespaces no tenant may claim by publishing (an operator assigns one with eligo namespaces transfer); \"none\" reserves none (env ELIGO_RESERVED_NAMESPACES; default the built-in list of government, agency and programme names)"),
		limits: fs.String("namespace-limits", os.Getenv("ELIGO_NAMESPACE_LIMITS"),
			"most namespaces a tenant of each tier may own, tier=n,... over the defaults free=3,starter=10,pro=50 (internal: no cap); 0 means no cap (env ELIGO_NAMESPACE_LIMITS)"),
	}
}

// apply sets cfg's namespace rules from the flags; unset flags keep the
// defaults.
func (f namespaceFlags) apply(cfg *publish.Config) error {
	if reserved, err := f.reservedList(); err != nil {
		return err
	} else if reserved != nil {
		cfg.ReservedNamespaces = reserved
	}
	if strings.TrimSpace(*f.limits) == "" {
		return nil
	}
	limits := publish.DefaultNamespaceLimits()
	for _, item := range splitList(*f.limits) {
		tier, n, ok := strings.Cut(item, "=")
		if _, err := auth.ParseTier(tier); err != nil || !ok {
			return fmt.Errorf("--namespace-limits %q: want tier=n with a tier of free, starter, pro or internal", item)
		}
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 {
			return fmt.Errorf("--namespace-limits %q: want a count of 0 (no cap) or more", item)
		}
		limits[tier] = count
	}
	cfg.NamespaceLimits = limits
	return nil
}

// reservedList is the --reserved-namespaces list: nil when unset (the
// defaults), empty for "none"; each entry must be a namespace.
func (f namespaceFlags) reservedList() ([]string, error) {
	raw := strings.TrimSpace(*f.reserved)
	switch raw {
	case "":
		return nil, nil
	case "none":
		return []string{}, nil
	}
	list := splitList(raw)
	for _, ns := range list {
		if err := checkNamespace(ns); err != nil {
			return nil, fmt.Errorf("--reserved-namespaces: %w", err)
		}
	}
	return list, nil
}

// checkNamespace refuses a value that cannot be a namespace (a slug's part
// before its first "/").
func checkNamespace(ns string) error {
	if strings.Contains(ns, "/") || !catalog.ValidSlug(ns) {
		return fmt.Errorf("%q is not a namespace: want lower-case letters, digits and -, starting with a letter, e.g. acme", ns)
	}
	return nil
}
