// Command eligo-load is the /decide load benchmark behind `make bench`.
//
// It sets up and measures a real deployment on loopback: it migrates the
// database at DATABASE_URL, publishes a casebank ruleset as public through
// `eligo publish`, issues a bench key, starts `eligo serve` as a child
// process (decision records and metering on, as in production), drives POST
// /decide calls from a fixed number of keep-alive connections for each
// scenario, and prints requests/s
// and latency percentiles. Finally it stops the server with SIGTERM, which
// flushes the decision records, and checks that every decision it was
// issued has its record.
//
// It starts one server per decision log mode asked for (by default spool,
// spool with fsync, database and buffered, all on the same database) and
// measures them in turn, so the modes' rows of one run sit side by side.
// Each server's PostgreSQL connections carry its own application_name,
// so the CPU time of the PostgreSQL backends serving it is counted per
// decision too.
//
// Beside each /decide row it measures the ceiling (bare.go): a bare
// net/http server, a child process like `eligo serve` and so with its
// GOMAXPROCS, that answers every POST with the bytes of a real /decide
// answer of the same scenario. The same generator drives it right after
// the /decide measurement, over as many connections for as long, and the
// /decide row shows its requests/s as a share of the bare server's.
//
// The load generator shares the machine with the server, so the figures
// are a floor for what the server alone can do. Besides throughput and
// latency it reports the CPU time the server and the generator spent per
// request, which does not depend on what else the machine is running.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/store"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "eligo-load:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	eligo       string
	folder      string
	duration    time.Duration
	warmup      time.Duration
	concurrency []int
	only        string
	procs       int
	rounds      int
	// modes are the decision log modes measured, one server each.
	modes []string
	// bare measures the bare server beside every /decide row;
	// bareServer makes this process that server (startBare).
	bare, bareServer bool
}

// scenario is one measured load: a request body template applied to every
// case of the ruleset in turn.
type scenario struct {
	name  string
	flags string // extra request members, e.g. `"include_trace":true`
}

var scenarios = []scenario{
	{"plain", ``},
	{"plain, no_cache", `"no_cache":true`},
	{"trace+explanation", `"include_trace":true,"include_explanation":true`},
	{"trace+explanation, no_cache", `"include_trace":true,"include_explanation":true,"no_cache":true`},
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("eligo-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.eligo, "eligo", "bin/eligo", "the eligo binary to serve with")
	fs.StringVar(&o.folder, "casebank", "casebank/snap-income", "casebank folder whose ruleset and cases are the load (default: the largest)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured time per scenario")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured time before each scenario")
	// Four connections keep two cores busy: with one request in flight per
	// connection, more of them only queue inside the server, adding the
	// latency Little's law predicts and no throughput (docs/performance.md#history
	// measures 2, 4 and 8). Sixteen is where the record modes differ
	// most: the database mode's group commit needs many requests waiting
	// to fill its batches.
	connections := fs.String("concurrency", "4,16", "keep-alive connections sending requests back to back; a comma-separated list runs every scenario at each count, e.g. 2,4,8")
	fs.IntVar(&o.procs, "procs", 1, "GOMAXPROCS of the generator itself (the server keeps its own)")
	fs.StringVar(&o.only, "scenarios", "", "comma-separated scenario names to run (default: all), e.g. \"plain\"")
	modes := fs.String("decision-log-mode", strings.Join(logModes, ","), "comma-separated decision log modes to measure side by side, one server each: spool (its spool in a fresh temporary directory), spool-fsync (the same with --decision-spool-fsync), database or buffered; the first is the one compared with buffered and the bare server in each block's summary")
	fs.IntVar(&o.rounds, "rounds", 5, "slices each scenario's measured time is cut into, /decide and the bare server taking turns")
	fs.BoolVar(&o.bare, "bare", true, "also measure a bare net/http server answering the same envelope bytes, and print /decide's throughput as a share of it")
	fs.BoolVar(&o.bareServer, "bare-server", false, "run as the bare server eligo-load starts for -bare (envelopes as JSON on stdin), not as the benchmark")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.bareServer {
		return serveBare(ctx, os.Stdin, stdout)
	}
	var err error
	if o.concurrency, err = parseCounts(*connections); err != nil {
		return fmt.Errorf("-concurrency: %w", err)
	}
	if o.modes, err = parseModes(*modes); err != nil {
		return fmt.Errorf("-decision-log-mode: %w", err)
	}
	if o.rounds < 1 || o.duration/time.Duration(o.rounds) < 100*time.Millisecond {
		return fmt.Errorf("-rounds %d: want at least 1, and slices of -duration of at least 100ms", o.rounds)
	}
	// The generator's goroutines only write prebuilt requests and read
	// responses: one P carries them (it needs about a quarter of a core at
	// 20,000 calls/s). With two, its threads woke on both cores and
	// preempted the server more often: alternating runs gave fewer stalls
	// of all connections at once (440-490 against 600-640 in 10 s) and 4-17%
	// more calls/s with one.
	runtime.GOMAXPROCS(max(1, o.procs))
	selected, err := selectScenarios(o.only)
	if err != nil {
		return err
	}
	if os.Getenv("DATABASE_URL") == "" {
		return errors.New("DATABASE_URL is not set")
	}
	cb, err := folder.Load(ctx, o.folder)
	if err != nil {
		return err
	}
	slug := "bench/" + cb.Name

	if err := eligo(ctx, o.eligo, nil, "migrate"); err != nil {
		return err
	}
	// The calls carry a fresh bench key: metering counts them against that
	// key, never against the loopback address, whose anonymous budget the
	// developer's own calls on this database share.
	var keyOut bytes.Buffer
	if err := eligo(ctx, o.eligo, &keyOut, "keys", "create", "--tenant", "bench", "--name", "bench", "--tier", "internal", "--scopes", "decide"); err != nil {
		return err
	}
	key := strings.TrimSpace(keyOut.String())
	casesPath := filepath.Join(o.folder, "cases.json")
	if err := eligo(ctx, o.eligo, nil, "publish", cb.RulesPath, "--tenant", "bench", "--slug", slug, "--cases", casesPath, "--public"); err != nil {
		return err
	}

	pool, err := store.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer pool.Close()
	spoolRoot, err := os.MkdirTemp("", "eligo-load-spool-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(spoolRoot)
	var servers []*server
	defer func() {
		for _, s := range servers {
			_ = s.cmd.Process.Kill()
		}
	}()
	for _, mode := range o.modes {
		s, err := startServer(ctx, o.eligo, mode, spoolRoot)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}

	l := &load{options: o, servers: servers, base: servers[0].base, key: key, slug: slug, cases: cb, pool: pool, stdout: stdout, stderr: stderr}
	var issued []string
	if o.bare {
		envs, ids, err := l.captureEnvelopes(ctx, selected)
		if err != nil {
			return err
		}
		issued = append(issued, ids...)
		if l.bareServer, err = startBare(ctx, envs); err != nil {
			return err
		}
		defer func() { _ = l.bareServer.cmd.Process.Kill() }()
		l.envelopes = envs
	}

	fmt.Fprintf(stdout, "POST /decide with a decide key on %s (%d cases, up to %d answers each), %s per scenario and mode, decision records on; modes measured in turn: %s\n",
		slug, len(cb.Cases), countFields(cb), o.duration, strings.Join(o.modes, ", "))
	fmt.Fprintln(stdout, "server CPU: the eligo serve process; PG CPU: the PostgreSQL backends of its connections (by application_name; not PostgreSQL's WAL writer, checkpointer or other background processes)")
	if o.bare {
		fmt.Fprintf(stdout, "bare: net/http on %s (GOMAXPROCS %d, the default eligo serve also runs with) reads each POST and answers the scenario's median /decide envelope (bytes in brackets); %d alternating rounds\n",
			l.bareServer.addr, l.bareServer.procs, o.rounds)
	}
	fmt.Fprintf(stdout, rowFormat, "scenario", "mode", "conns", "requests/s", "p50 ms", "p99 ms", "p99.9 ms", "server CPU", "PG CPU", "client CPU", "errors", "of bare")
	for i, sc := range selected {
		for _, conns := range o.concurrency {
			ids, err := l.measure(ctx, i, sc, conns)
			if err != nil {
				return err
			}
			issued = append(issued, ids...)
		}
	}

	if l.bareServer != nil {
		if err := l.bareServer.stop(); err != nil {
			return err
		}
	}
	// SIGTERM: each server drains and flushes its decision records.
	for _, s := range servers {
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return fmt.Errorf("stop %s server: %w", s.mode, err)
		}
	}
	for _, s := range servers {
		if err := s.cmd.Wait(); err != nil {
			return fmt.Errorf("%s server exit: %w", s.mode, err)
		}
	}
	return checkRecords(ctx, store.New(pool), issued, stdout)
}

// logModes are the decision log modes eligo-load knows, in the order it
// measures them by default: the default mode first.
var logModes = []string{"spool", "spool-fsync", "database", "buffered"}

// parseModes reads a comma-separated list of logModes.
func parseModes(list string) ([]string, error) {
	var modes []string
	for field := range strings.SplitSeq(list, ",") {
		mode := strings.TrimSpace(field)
		if !slices.Contains(logModes, mode) {
			return nil, fmt.Errorf("%q is not a decision log mode; want some of %s", mode, strings.Join(logModes, ", "))
		}
		if slices.Contains(modes, mode) {
			return nil, fmt.Errorf("mode %q given twice", mode)
		}
		modes = append(modes, mode)
	}
	return modes, nil
}

// server is one running `eligo serve`, in one decision log mode.
type server struct {
	mode string
	cmd  *exec.Cmd
	// base is its public API's URL.
	base string
	// app is the application_name of its PostgreSQL connections.
	app string
}

// load is one running benchmark: the server under load, the bench key
// and the casebank folder whose cases are the request bodies.
type load struct {
	options
	// servers are the servers under load, one per mode; base is the
	// first's, which answers the envelopes the bare server replays.
	servers   []*server
	base, key string
	slug      string
	cases     *folder.Folder
	// pool reads which PostgreSQL backends serve each server.
	pool           *pgxpool.Pool
	stdout, stderr io.Writer
	// bareServer and envelopes (one per selected scenario, in order) are
	// the ceiling measured beside each row; nil without -bare.
	bareServer *bareServer
	envelopes  []envelope
}

// measure warms every server up with scenario sc (the i-th selected) and
// the bare server with sc's envelope, then drives them in turn from conns
// connections, in o.rounds alternating slices that add up to the measured
// duration each, prints a row per server and a summary, and returns the
// decision ids the real servers issued. Alternating keeps the ratios fair
// on a machine whose other load changes from one second to the next.
func (l *load) measure(ctx context.Context, i int, sc scenario, conns int) ([]string, error) {
	bodies, err := l.bodies(sc)
	if err != nil {
		return nil, err
	}
	var targets []*target
	for _, s := range l.servers {
		targets = append(targets, &target{name: sc.name, mode: s.mode, base: s.base, pid: s.cmd.Process.Pid, app: s.app})
	}
	var bare *target
	if l.bareServer != nil {
		bare = &target{name: fmt.Sprintf("  bare net/http (%d B)", len(l.envelopes[i].Body)),
			base: "http://" + l.bareServer.addr + l.envelopes[i].Path, pid: l.bareServer.cmd.Process.Pid}
		targets = append(targets, bare)
	}
	for _, t := range targets {
		if _, err := drive(ctx, t.base, l.key, bodies, conns, l.warmup, false); err != nil {
			return nil, fmt.Errorf("%s: %w", t.label(), err)
		}
	}
	slice := l.duration / time.Duration(l.rounds)
	for range l.rounds {
		for _, t := range targets {
			serverBefore, clientBefore := processCPU(t.pid), selfCPU()
			pgBefore := l.backendCPU(ctx, t.app)
			res, err := drive(ctx, t.base, l.key, bodies, conns, slice, true)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.label(), err)
			}
			l.settle(ctx, t)
			t.serverCPU += processCPU(t.pid) - serverBefore
			t.clientCPU += selfCPU() - clientBefore
			t.pgCPU += cpuSince(pgBefore, l.backendCPU(ctx, t.app))
			t.res.add(res)
		}
	}
	measured := slice * time.Duration(l.rounds)
	var ids []string
	for _, t := range targets {
		slices.Sort(t.res.latencies)
		ofBare := "-"
		switch {
		case t == bare:
			ofBare = ""
		case bare != nil:
			ofBare = share(float64(t.res.ok), float64(bare.res.ok))
		}
		l.row(t, conns, measured, ofBare)
		ids = append(ids, t.res.ids...)
	}
	l.summary(targets, bare)
	return ids, nil
}

// settle waits, up to 3 s, until t's server and its PostgreSQL backends
// have gone quiet (under a tenth of a core over 100 ms), so that the work
// a mode does after the answers (shipping the spool, buffered mode's
// COPYs every 250 ms) counts in its own CPU time per decision and does
// not run in the next server's slice.
func (l *load) settle(ctx context.Context, t *target) {
	busy := func() time.Duration {
		d := processCPU(t.pid)
		for _, used := range l.backendCPU(ctx, t.app) {
			d += used
		}
		return d
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		before := busy()
		time.Sleep(100 * time.Millisecond)
		if busy()-before <= 10*time.Millisecond {
			return
		}
	}
}

// summary prints, under a block of rows, how the first mode measured
// compares with buffered (the mode that keeps no record through a crash)
// and with the bare server: the aims (docs/performance.md#the-record-modes-side-by-side) are at least 85% of
// buffered's throughput, a p99 at most 1.5 times buffered's, and at least
// half of the bare server's throughput.
func (l *load) summary(targets []*target, bare *target) {
	first := targets[0]
	if first == bare {
		return
	}
	var parts []string
	for _, t := range targets[1:] {
		if t.mode == "buffered" && first.mode != "buffered" && t.res.ok > 0 && t.res.percentile(0.99) > 0 {
			parts = append(parts, fmt.Sprintf("%.2f× buffered's requests/s, p99 %.2f× buffered's", float64(first.res.ok)/float64(t.res.ok),
				float64(first.res.percentile(0.99))/float64(t.res.percentile(0.99))))
		}
	}
	if bare != nil && bare.res.ok > 0 {
		parts = append(parts, fmt.Sprintf("%s of bare", share(float64(first.res.ok), float64(bare.res.ok))))
	}
	if len(parts) > 0 {
		fmt.Fprintf(l.stdout, "  %s: %s\n", first.mode, strings.Join(parts, "; "))
	}
}

// target is one server measured in a row of the table, and its tally.
type target struct {
	name string
	// mode is the server's decision log mode; empty for the bare server.
	mode string
	base string // what drive is given
	pid  int    // the server's process, whose CPU time is counted
	// app is the application_name of the server's PostgreSQL
	// connections, whose backends' CPU time is counted; empty for none.
	app                         string
	res                         result
	serverCPU, clientCPU, pgCPU time.Duration
}

// label names t in errors.
func (t *target) label() string {
	if t.mode == "" {
		return strings.TrimSpace(t.name)
	}
	return t.name + " (" + t.mode + ")"
}

// bodies returns the request bodies of scenario sc: one per case, as of
// the case's date.
func (l *load) bodies(sc scenario) ([][]byte, error) {
	extra := ""
	if sc.flags != "" {
		extra = "," + sc.flags
	}
	return l.cases.DecideBodies(l.slug, extra)
}

// rowFormat lays out the table's header and rows.
const rowFormat = "%-30s %-11s %5v %11v %8v %8v %9v %12v %12v %12v %7v %8s\n"

// row prints t's line of the table, measured over measured; ofBare is
// the last column.
func (l *load) row(t *target, conns int, measured time.Duration, ofBare string) {
	res := &t.res
	perRequest := func(d time.Duration) string {
		return fmt.Sprintf("%.1f µs/req", float64(d.Microseconds())/float64(max(res.ok, 1)))
	}
	pg := "-"
	if t.app != "" && t.pgCPU > 0 {
		pg = perRequest(t.pgCPU)
	}
	fmt.Fprintf(l.stdout, rowFormat, t.name, t.mode, conns, fmt.Sprintf("%.0f", float64(res.ok)/measured.Seconds()),
		fmt.Sprintf("%.3f", ms(res.percentile(0.50))), fmt.Sprintf("%.3f", ms(res.percentile(0.99))), fmt.Sprintf("%.3f", ms(res.percentile(0.999))),
		perRequest(t.serverCPU), pg, perRequest(t.clientCPU), res.errors, ofBare)
	if res.errors > 0 {
		fmt.Fprintf(l.stderr, "%s: first refused call: %s\n", t.label(), res.firstError)
	}
}

// parseCounts reads a comma-separated list of positive connection counts.
func parseCounts(list string) ([]int, error) {
	var counts []int
	for field := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", field)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// selectScenarios returns the scenarios named in list (comma-separated),
// in the order of scenarios; all of them when list is empty.
func selectScenarios(list string) ([]scenario, error) {
	if list == "" {
		return scenarios, nil
	}
	// Names hold commas themselves ("plain, no_cache"), so a name is the
	// longest run of comma-separated parts that spells one.
	known := func(name string) bool {
		return slices.ContainsFunc(scenarios, func(sc scenario) bool { return sc.name == name })
	}
	parts := strings.Split(list, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var names []string
	for i := 0; i < len(parts); {
		j := len(parts)
		for j > i && !known(strings.Join(parts[i:j], ", ")) {
			j--
		}
		if j == i {
			return nil, fmt.Errorf("unknown scenario %q", parts[i])
		}
		names = append(names, strings.Join(parts[i:j], ", "))
		i = j
	}
	var selected []scenario
	for _, sc := range scenarios {
		if slices.Contains(names, sc.name) {
			selected = append(selected, sc)
		}
	}
	return selected, nil
}

// eligo runs one eligo subcommand to completion, its stdout into out.
func eligo(ctx context.Context, bin string, out io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	if out == nil {
		cmd.Stdout = io.Discard
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("eligo %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// startServer starts `eligo serve` in decision log mode (one of
// logModes; the spool modes spool under a directory of their own in
// spoolRoot) on a free loopback port, its PostgreSQL connections named
// eligo-load-<mode>, and waits until it is ready. The request log goes to
// a discard pipe reader.
func startServer(ctx context.Context, bin, mode, spoolRoot string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	app := "eligo-load-" + mode
	dbURL, err := withApplicationName(os.Getenv("DATABASE_URL"), app)
	if err != nil {
		return nil, err
	}
	// The internal tier's decide budget is raised so metering counts every
	// call without refusing any, however often the bench runs in a day.
	args := []string{"serve", "--addr", addr, "--budgets", "internal.decide=1000000000"}
	switch mode {
	case "spool", "spool-fsync":
		args = append(args, "--decision-log-mode", "spool", "--decision-spool", filepath.Join(spoolRoot, mode),
			"--decision-spool-fsync="+strconv.FormatBool(mode == "spool-fsync"))
	default:
		args = append(args, "--decision-log-mode", mode)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	cmd.Stdout = io.Discard
	logs, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s server: %w", mode, err)
	}
	// Keep the pipe drained; show only lines above info (failures).
	go func() {
		sc := bufio.NewScanner(logs)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if line := sc.Bytes(); !bytes.Contains(line, []byte(`"level":"INFO"`)) {
				fmt.Fprintf(os.Stderr, "%s server: %s\n", mode, line)
			}
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return &server{mode: mode, cmd: cmd, base: "http://" + addr + "/api/v1/public", app: app}, nil
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("%s server not ready after 30s", mode)
		}
	}
}

// withApplicationName returns the PostgreSQL URL dbURL with its
// application_name set to name.
func withApplicationName(dbURL, name string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", fmt.Errorf("DATABASE_URL: %w", err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

const sqlBackendsOf = `SELECT pid FROM pg_stat_activity WHERE application_name = $1`

// backendCPU returns the CPU time used so far by each PostgreSQL backend
// whose application_name is app, by pid (from /proc: the database must run
// on this machine; elsewhere the map is empty). Nil for an empty app.
func (l *load) backendCPU(ctx context.Context, app string) map[int]time.Duration {
	if app == "" {
		return nil
	}
	rows, err := l.pool.Query(ctx, sqlBackendsOf, app)
	if err != nil {
		return nil
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil
	}
	cpu := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		if d := processCPU(int(pid)); d > 0 {
			cpu[int(pid)] = d
		}
	}
	return cpu
}

// cpuSince is the CPU time the backends of after used since before; a
// backend that started in between counts whole, one that ended is lost.
func cpuSince(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, used := range after {
		d += used - before[pid]
	}
	return d
}

// checkRecords confirms that every decision issued during the run has its
// durable record.
func checkRecords(ctx context.Context, st *store.Store, issued []string, stdout io.Writer) error {
	missing, err := st.MissingDecisionIDs(ctx, issued)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d of %d issued decisions have no record", len(missing), len(issued))
	}
	fmt.Fprintf(stdout, "decision records: all %d issued decisions recorded\n", len(issued))
	return nil
}

// processCPU returns the user plus system CPU time pid has used, from
// /proc/<pid>/stat (Linux); zero when it cannot be read.
func processCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may contain spaces; the fields after it do not.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	var utime, stime int64
	fmt.Sscan(fields[11], &utime)
	fmt.Sscan(fields[12], &stime)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}

// selfCPU returns the CPU time this process (the load generator) has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func countFields(cb *folder.Folder) int {
	var fields map[string]json.RawMessage
	n := 0
	for _, c := range cb.Cases {
		if json.Unmarshal(c.FieldValues, &fields) == nil {
			n = max(n, len(fields))
		}
	}
	return n
}
