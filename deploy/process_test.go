package deploy_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildEligo builds ./cmd/eligo into a directory of the test's and returns
// the binary's path: the replicas are the binary an operator installs, not
// the test binary. The build cache makes every build after the first a
// link.
func buildEligo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "eligo")
	build := exec.Command("go", "build", "-o", bin, "../cmd/eligo")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/eligo: %v\n%s", err, out)
	}
	return bin
}

// tool finds a program of a Debian package the tests need (scripts/deps.sh
// installs them), also in the sbin directories a user's PATH may lack. It
// fails the test rather than skip it: these checks must run in CI.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	t.Fatalf("%s is not installed: run scripts/deps.sh (make deps)", name)
	return ""
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// runEligo runs the binary with args and returns its exit code, stdout and
// stderr.
func runEligo(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	default:
		t.Fatalf("eligo %s: %v", strings.Join(args, " "), err)
		return -1, "", ""
	}
}

// replica is one `eligo serve` process. Its API address is fixed at the
// first start, so that a restart comes back where the balancer expects
// it; its decision spool is its own, as a persistent volume would be.
type replica struct {
	name    string
	bin     string
	env     []string
	args    []string // every flag but --addr and --metrics-addr
	spool   string
	logPath string

	addr    string // host:port of the API
	metrics string // the metrics page's URL, new at each start
	cmd     *exec.Cmd
	exited  chan error
}

// start runs the process and waits for its "serving" line. The first
// start takes a free port; later ones reuse it. The test that made the
// replica kills it at its end (kill), not the subtest that starts it.
func (r *replica) start(t *testing.T) {
	t.Helper()
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	args := append([]string{"serve", "--addr", addr, "--metrics-addr", "127.0.0.1:0", "--decision-spool", r.spool}, r.args...)
	cmd := exec.Command(r.bin, args...)
	cmd.Env = r.env
	logFile, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: start: %v", r.name, err)
	}
	r.cmd, r.exited = cmd, make(chan error, 1)
	lines := bufio.NewReader(stdout)
	for {
		line, err := lines.ReadString('\n')
		if err != nil {
			_ = cmd.Wait()
			t.Fatalf("%s printed no address (%v); its log:\n%s", r.name, err, r.logTail())
		}
		if m, ok := strings.CutPrefix(line, "eligo metrics on "); ok {
			r.metrics = strings.TrimSpace(m)
		}
		if root, ok := strings.CutPrefix(line, "eligo serving on http://"); ok {
			r.addr, _, _ = strings.Cut(strings.TrimSpace(root), "/")
			break
		}
	}
	exited := r.exited
	go func() {
		_, _ = io.Copy(io.Discard, lines)
		exited <- cmd.Wait()
	}()
}

// root is the replica's versioned API root, for calls that bypass the
// balancer.
func (r *replica) root() string { return "http://" + r.addr + "/api/v1/public" }

// signal sends sig to the process.
func (r *replica) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s: signal %v: %v", r.name, sig, err)
	}
}

// stop sends SIGTERM and fails the test unless the process exits 0 within
// a minute (its shutdown timeout twice, and margin).
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.signal(t, syscall.SIGTERM)
	select {
	case err := <-r.exited:
		r.exited = nil
		if err != nil {
			t.Fatalf("%s exited with %v after SIGTERM; its log:\n%s", r.name, err, r.logTail())
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s did not stop within a minute of SIGTERM", r.name)
	}
}

// killNow sends SIGKILL and waits for the process to be gone.
func (r *replica) killNow(t *testing.T) {
	t.Helper()
	r.signal(t, syscall.SIGKILL)
	<-r.exited
	r.exited = nil
}

// kill is the test's cleanup: SIGKILL if still running.
func (r *replica) kill() {
	if r.exited == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.exited
	r.exited = nil
}

// logTail is the end of the replica's log, for failure messages.
func (r *replica) logTail() string {
	raw, _ := os.ReadFile(r.logPath)
	if len(raw) > 4000 {
		raw = raw[len(raw)-4000:]
	}
	return string(raw)
}

// balancer is HAProxy running deploy/haproxy.cfg as it is, with the
// addresses in its environment.
type balancer struct {
	url     string // http://host:port of the frontend
	socket  string // the runtime API's socket
	logPath string
}

// startBalancer runs HAProxy in the foreground with deploy/haproxy.cfg in
// front of replicas, and waits until it answers on its admin socket.
func startBalancer(t *testing.T, replicas []*replica) *balancer {
	t.Helper()
	dir := t.TempDir()
	b := &balancer{socket: filepath.Join(dir, "admin.sock"), logPath: filepath.Join(dir, "haproxy.log")}
	addr := freeAddr(t)
	b.url = "http://" + addr
	env := append(os.Environ(), "ELIGO_LB_BIND="+addr, "ELIGO_LB_ADMIN_SOCKET="+b.socket)
	for i, r := range replicas {
		env = append(env, "ELIGO_REPLICA_"+strconv.Itoa(i+1)+"="+r.addr)
	}
	cmd := exec.Command(tool(t, "haproxy"), "-db", "-f", "haproxy.cfg")
	cmd.Env = env
	logFile, err := os.Create(b.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("haproxy: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			raw, _ := os.ReadFile(b.logPath)
			t.Fatalf("haproxy exited: %v\n%s", err, raw)
		default:
		}
		if c, err := net.Dial("unix", b.socket); err == nil {
			c.Close()
			return b
		}
		if time.Now().After(deadline) {
			t.Fatal("haproxy's admin socket did not appear")
		}
	}
}

// command sends one command to HAProxy's runtime API and returns its
// answer.
func (b *balancer) command(t *testing.T, cmd string) string {
	t.Helper()
	c, err := net.Dial("unix", b.socket)
	if err != nil {
		t.Fatalf("haproxy admin socket: %v", err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// serverStat is a backend server's line of HAProxy's statistics.
type serverStat struct {
	status  string // UP, DOWN, DRAIN, MAINT, or a transition such as "UP 1/2"
	scur    int    // sessions open now
	eresp   int    // responses that failed: the server closed or reset mid-answer
	hrsp5   int    // 5xx responses the server sent
	srvAbrt int    // transfers the server aborted
}

// stats reads the backend eligo's servers from "show stat".
func (b *balancer) stats(t *testing.T) map[string]serverStat {
	t.Helper()
	raw := strings.TrimPrefix(b.command(t, "show stat"), "# ")
	rows, err := csv.NewReader(strings.NewReader(raw)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("show stat: %v\n%s", err, raw)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	num := func(row []string, name string) int {
		n, _ := strconv.Atoi(row[col[name]])
		return n
	}
	out := map[string]serverStat{}
	for _, row := range rows[1:] {
		if len(row) < len(rows[0])-1 || row[col["pxname"]] != "eligo" || row[col["svname"]] == "BACKEND" || row[col["svname"]] == "FRONTEND" {
			continue
		}
		out[row[col["svname"]]] = serverStat{status: row[col["status"]], scur: num(row, "scur"),
			eresp: num(row, "eresp"), hrsp5: num(row, "hrsp_5xx"), srvAbrt: num(row, "srv_abrt")}
	}
	return out
}

// waitStatus waits until HAProxy reports server in status (its health
// checks on /readyz decide UP and DOWN).
func (b *balancer) waitStatus(t *testing.T, server, status string) {
	t.Helper()
	start := time.Now()
	for {
		got := b.stats(t)[server].status
		if got == status {
			t.Logf("haproxy: %s %s after %v", server, status, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > time.Minute {
			raw, _ := os.ReadFile(b.logPath)
			t.Fatalf("haproxy: %s is %q after a minute, want %q\n%s", server, got, status, raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// drain stops new requests reaching server and waits until it holds no
// session: the first step of a rolling restart (docs/deployment.md#rolling-upgrades).
func (b *balancer) drain(t *testing.T, server string) {
	t.Helper()
	if out := strings.TrimSpace(b.command(t, "set server eligo/"+server+" state drain")); out != "" {
		t.Fatalf("drain %s: %s", server, out)
	}
	b.waitStatus(t, server, "DRAIN")
	for deadline := time.Now().Add(time.Minute); b.stats(t)[server].scur > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still holds sessions a minute after drain", server)
		}
	}
}

// ready returns a drained server to service once its checks pass.
func (b *balancer) ready(t *testing.T, server string) {
	t.Helper()
	if out := strings.TrimSpace(b.command(t, "set server eligo/"+server+" state ready")); out != "" {
		t.Fatalf("ready %s: %s", server, out)
	}
	b.waitStatus(t, server, "UP")
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// call makes one request and returns the status and body; a transport
// error is status 0 with the error's text.
func call(client *http.Client, method, url, key string, header map[string]string, body string) (int, []byte) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, []byte(err.Error())
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, []byte(err.Error())
	}
	return res.StatusCode, raw
}
