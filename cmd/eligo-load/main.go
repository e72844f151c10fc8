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
	"sync"
	"syscall"
	"time"

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
	// logMode is the server's --decision-log-mode.
	logMode string
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
	// measures 2, 4 and 8).
	connections := fs.String("concurrency", "4", "keep-alive connections sending requests back to back; a comma-separated list runs every scenario at each count, e.g. 2,4,8")
	fs.IntVar(&o.procs, "procs", 1, "GOMAXPROCS of the generator itself (the server keeps its own)")
	fs.StringVar(&o.only, "scenarios", "", "comma-separated scenario names to run (default: all), e.g. \"plain\"")
	fs.StringVar(&o.logMode, "decision-log-mode", "spool", "the server's decision log mode: spool (its spool in a fresh temporary directory), database or buffered")
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

	spoolDir, err := os.MkdirTemp("", "eligo-load-spool-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(spoolDir)
	server, base, err := startServer(ctx, o.eligo, "--decision-log-mode", o.logMode, "--decision-spool", spoolDir)
	if err != nil {
		return err
	}
	defer func() { _ = server.Process.Kill() }()

	l := &load{options: o, server: server, base: base, key: key, slug: slug, cases: cb, stdout: stdout, stderr: stderr}
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

	fmt.Fprintf(stdout, "POST /decide with a decide key on %s (%d cases, up to %d answers each), %s per scenario, decision records on (%s mode)\n",
		slug, len(cb.Cases), countFields(cb), o.duration, o.logMode)
	if o.bare {
		fmt.Fprintf(stdout, "bare: net/http on %s (GOMAXPROCS %d, the default eligo serve also runs with) reads each POST and answers the scenario's median /decide envelope (bytes in brackets); %d alternating rounds\n",
			l.bareServer.addr, l.bareServer.procs, o.rounds)
	}
	fmt.Fprintf(stdout, "%-30s %5s %11s %8s %8s %9s %12s %12s %7s %8s\n", "scenario", "conns", "requests/s", "p50 ms", "p99 ms", "p99.9 ms", "server CPU", "client CPU", "errors", "of bare")
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
	// SIGTERM: the server drains and flushes its decision records.
	if err := server.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop server: %w", err)
	}
	if err := server.Wait(); err != nil {
		return fmt.Errorf("server exit: %w", err)
	}
	return checkRecords(ctx, issued, stdout)
}

// load is one running benchmark: the server under load, the bench key
// and the casebank folder whose cases are the request bodies.
type load struct {
	options
	server         *exec.Cmd
	base, key      string
	slug           string
	cases          *folder.Folder
	stdout, stderr io.Writer
	// bareServer and envelopes (one per selected scenario, in order) are
	// the ceiling measured beside each row; nil without -bare.
	bareServer *bareServer
	envelopes  []envelope
}

// measure warms the server up with scenario sc (the i-th selected) and
// the bare server with sc's envelope, then drives them in turn from conns
// connections, in o.rounds alternating slices that add up to the measured
// duration each, prints the two rows and returns the decision ids the
// real server issued. Alternating keeps the ratio of the two fair on a
// machine whose other load changes from one second to the next.
func (l *load) measure(ctx context.Context, i int, sc scenario, conns int) ([]string, error) {
	bodies, err := l.bodies(sc)
	if err != nil {
		return nil, err
	}
	targets := []*target{{name: sc.name, base: l.base, pid: l.server.Process.Pid}}
	if l.bareServer != nil {
		targets = append(targets, &target{name: fmt.Sprintf("  bare net/http (%d B)", len(l.envelopes[i].Body)),
			base: "http://" + l.bareServer.addr + l.envelopes[i].Path, pid: l.bareServer.cmd.Process.Pid})
	}
	for _, t := range targets {
		if _, err := drive(ctx, t.base, l.key, bodies, conns, l.warmup, false); err != nil {
			return nil, fmt.Errorf("%s: %w", strings.TrimSpace(t.name), err)
		}
	}
	slice := l.duration / time.Duration(l.rounds)
	for range l.rounds {
		for _, t := range targets {
			serverBefore, clientBefore := processCPU(t.pid), selfCPU()
			res, err := drive(ctx, t.base, l.key, bodies, conns, slice, true)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", strings.TrimSpace(t.name), err)
			}
			t.serverCPU += processCPU(t.pid) - serverBefore
			t.clientCPU += selfCPU() - clientBefore
			t.res.add(res)
		}
	}
	ofBare := "-"
	if len(targets) > 1 {
		ofBare = share(float64(targets[0].res.ok), float64(targets[1].res.ok))
	}
	for n, t := range targets {
		slices.Sort(t.res.latencies)
		if n > 0 {
			ofBare = "" // the bare row itself
		}
		l.row(t, conns, slice*time.Duration(l.rounds), ofBare)
	}
	return targets[0].res.ids, nil
}

// target is one server measured in a row of the table, and its tally.
type target struct {
	name                 string
	base                 string // what drive is given
	pid                  int    // the server's process, whose CPU time is counted
	res                  result
	serverCPU, clientCPU time.Duration
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

// row prints t's line of the table, measured over measured; ofBare is
// the last column.
func (l *load) row(t *target, conns int, measured time.Duration, ofBare string) {
	res := &t.res
	perRequest := func(d time.Duration) string {
		return fmt.Sprintf("%.1f µs/req", float64(d.Microseconds())/float64(max(res.ok, 1)))
	}
	fmt.Fprintf(l.stdout, "%-30s %5d %11.0f %8.3f %8.3f %9.3f %12s %12s %7d %8s\n", t.name, conns, float64(res.ok)/measured.Seconds(),
		ms(res.percentile(0.50)), ms(res.percentile(0.99)), ms(res.percentile(0.999)),
		perRequest(t.serverCPU), perRequest(t.clientCPU), res.errors, ofBare)
	if res.errors > 0 {
		fmt.Fprintf(l.stderr, "%s: first refused call: %s\n", strings.TrimSpace(t.name), res.firstError)
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

// startServer starts `eligo serve` on a free loopback port and waits until
// it is ready. The request log goes to a discard pipe reader.
func startServer(ctx context.Context, bin string, extra ...string) (*exec.Cmd, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	// The internal tier's decide budget is raised so metering counts every
	// call without refusing any, however often the bench runs in a day.
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", addr, "--budgets", "internal.decide=1000000000"}, extra...)...)
	cmd.Stdout = io.Discard
	logs, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start server: %w", err)
	}
	// Keep the pipe drained; show only lines above info (failures).
	go func() {
		sc := bufio.NewScanner(logs)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if line := sc.Bytes(); !bytes.Contains(line, []byte(`"level":"INFO"`)) {
				fmt.Fprintf(os.Stderr, "server: %s\n", line)
			}
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return cmd, "http://" + addr + "/api/v1/public", nil
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, "", errors.New("server not ready after 30s")
		}
	}
}

// result is one scenario's measurements.
type result struct {
	ok, errors int
	// firstError is the status and body of the first refused call, so
	// that an errors count can be explained.
	firstError string
	latencies  []time.Duration
	ids        []string
}

// add counts o's calls in r; r's latencies are sorted again afterwards.
func (r *result) add(o *result) {
	r.ok += o.ok
	r.errors += o.errors
	if r.firstError == "" {
		r.firstError = o.firstError
	}
	r.latencies = append(r.latencies, o.latencies...)
	r.ids = append(r.ids, o.ids...)
}

// percentile returns the latency below which a share p of the calls
// fell; r.latencies must be sorted.
func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var decisionIDKey = []byte(`"decision_id":"`)

// drive sends bodies round-robin from concurrency connections for d and
// gathers latencies and the issued decision ids (when keep is set). Each
// connection is a plain HTTP/1.1 keep-alive connection with one request in
// flight at a time: the requests are prebuilt bytes and a response is read
// by its Content-Length, so the generator spends as little of the shared
// CPU as it can (net/http's client costs several times more per request).
func drive(ctx context.Context, base, key string, bodies [][]byte, concurrency int, d time.Duration, keep bool) (*result, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	requests := make([][]byte, len(bodies))
	for i, body := range bodies {
		requests[i] = append([]byte(fmt.Sprintf("POST %s/decide HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			u.Path, u.Host, key, len(body))), body...)
	}
	stop := time.Now().Add(d)
	results := make([]result, concurrency)
	errs := make([]error, concurrency)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Go(func() {
			conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", u.Host)
			if err != nil {
				errs[w] = err
				return
			}
			defer conn.Close()
			rd := bufio.NewReaderSize(conn, 64<<10)
			r := &results[w]
			var body []byte
			for i := w; time.Now().Before(stop); i++ {
				start := time.Now()
				if _, err := conn.Write(requests[i%len(requests)]); err != nil {
					errs[w] = err
					return
				}
				var status int
				status, body, err = readResponse(rd, body[:0])
				if err != nil {
					errs[w] = err
					return
				}
				elapsed := time.Since(start)
				if status != http.StatusOK {
					if r.errors == 0 {
						r.firstError = fmt.Sprintf("%d %s", status, body)
					}
					r.errors++
					continue
				}
				r.ok++
				if keep {
					r.latencies = append(r.latencies, elapsed)
					if id := decisionID(body); id != "" {
						r.ids = append(r.ids, id)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	total := &result{}
	for i := range results {
		total.add(&results[i])
	}
	slices.Sort(total.latencies)
	return total, nil
}

// readResponse reads one HTTP/1.1 response with a Content-Length body (the
// server sends one on every /decide answer) and returns its status and
// body, appended to buf.
func readResponse(rd *bufio.Reader, buf []byte) (int, []byte, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return 0, buf, fmt.Errorf("read status line: %w", err)
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, buf, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, buf, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		line, err := rd.ReadSlice('\n')
		if err != nil {
			return 0, buf, fmt.Errorf("read header: %w", err)
		}
		if len(line) <= 2 {
			break
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return 0, buf, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 {
		return 0, buf, errors.New("response without Content-Length")
	}
	start := len(buf)
	buf = slices.Grow(buf, length)[:start+length]
	if _, err := io.ReadFull(rd, buf[start:]); err != nil {
		return 0, buf, fmt.Errorf("read body: %w", err)
	}
	return status, buf, nil
}

// checkRecords confirms that every decision issued during the run has its
// durable record.
func checkRecords(ctx context.Context, issued []string, stdout io.Writer) error {
	pool, err := store.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer pool.Close()
	missing, err := store.New(pool).MissingDecisionIDs(ctx, issued)
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
