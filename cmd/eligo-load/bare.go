package main

// The bare server is the ceiling beside the figure: a plain net/http
// handler that reads each request's body and answers bytes captured from
// a real /decide answer, driven by the same generator, over the same
// number of connections, for the same time, in the same run. No handler
// that reads a request and writes that answer through net/http can do
// more on this machine, so /decide's requests/s as a share of it says how
// much of the machine the decision itself costs.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// envelope is one /decide answer the bare server replays: every POST to
// Path + "/decide" is answered with Header and Body.
type envelope struct {
	Path   string      `json:"path"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// bareServer is the running bare server: a child process of eligo-load.
type bareServer struct {
	cmd *exec.Cmd
	// addr is its loopback address; procs its GOMAXPROCS.
	addr  string
	procs int
}

// captureEnvelopes asks the real server once for each case of each
// scenario and keeps, per scenario, the answer of median size: the bytes
// the bare server answers while that scenario is measured. It returns the
// envelopes in the order of scenarios (envelope i under the path /s<i>)
// and the decision ids it was issued.
func (l *load) captureEnvelopes(ctx context.Context, scenarios []scenario) ([]envelope, []string, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	var envs []envelope
	var ids []string
	for i, sc := range scenarios {
		var answers []envelope
		bodies, err := l.bodies(sc)
		if err != nil {
			return nil, nil, err
		}
		for _, body := range bodies {
			env, err := l.decideOnce(ctx, client, body)
			if err != nil {
				return nil, nil, fmt.Errorf("capture %s: %w", sc.name, err)
			}
			if id := decisionID(env.Body); id != "" {
				ids = append(ids, id)
			}
			answers = append(answers, env)
		}
		slices.SortStableFunc(answers, func(a, b envelope) int { return len(a.Body) - len(b.Body) })
		median := answers[len(answers)/2]
		median.Path = "/s" + strconv.Itoa(i)
		envs = append(envs, median)
	}
	return envs, ids, nil
}

// decideOnce sends one POST /decide with body and returns the answer.
func (l *load) decideOnce(ctx context.Context, client *http.Client, body []byte) (envelope, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/decide", bytes.NewReader(body))
	if err != nil {
		return envelope{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", l.key)
	res, err := client.Do(req)
	if err != nil {
		return envelope{}, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return envelope{}, fmt.Errorf("read answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return envelope{}, fmt.Errorf("%s: %s", res.Status, answer)
	}
	return envelope{Header: res.Header, Body: answer}, nil
}

// startBare starts this same program as the bare server (flag
// -bare-server) with envs on its standard input and waits for the
// address it reports. As a child of eligo-load started like `eligo
// serve`, with the same environment, it gets the same GOMAXPROCS as the
// real server, not the generator's.
func startBare(ctx context.Context, envs []envelope) (*bareServer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start bare server: %w", err)
	}
	input, err := json.Marshal(envs)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-bare-server")
	cmd.Stdin, cmd.Stderr = bytes.NewReader(input), os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start bare server: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	var b bareServer
	if err == nil {
		_, err = fmt.Sscan(line, &b.addr, &b.procs)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("bare server did not report its address: %w", err)
	}
	b.cmd = cmd
	return &b, nil
}

// stop ends the bare server with SIGTERM and waits for it.
func (b *bareServer) stop() error {
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop bare server: %w", err)
	}
	if err := b.cmd.Wait(); err != nil {
		return fmt.Errorf("bare server exit: %w", err)
	}
	return nil
}

// serveBare is the bare server's process: it reads the envelopes as JSON
// from stdin, listens on a free loopback port, writes "<address>
// <GOMAXPROCS>" and a newline to stdout, and serves until SIGTERM.
func serveBare(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	var envs []envelope
	if err := json.NewDecoder(stdin).Decode(&envs); err != nil {
		return fmt.Errorf("read envelopes: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Handler: bareHandler(envs), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if _, err := fmt.Fprintln(stdout, ln.Addr().String(), runtime.GOMAXPROCS(0)); err != nil {
		return err
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bareHandler answers every POST to an envelope's Path + "/decide" with
// that envelope, once it has read the request's body as any handler must;
// the Date header is net/http's own, as on the real server.
func bareHandler(envs []envelope) http.Handler {
	mux := http.NewServeMux()
	for _, env := range envs {
		header := env.Header.Clone()
		header.Del("Date")
		header.Set("Content-Length", strconv.Itoa(len(env.Body)))
		body := env.Body
		mux.HandleFunc("POST "+env.Path+"/decide", func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				return
			}
			h := w.Header()
			for name, values := range header {
				h[name] = values
			}
			_, _ = w.Write(body)
		})
	}
	return mux
}

// decisionID returns the decision_id of an envelope, or "" without one.
func decisionID(body []byte) string {
	at := bytes.Index(body, decisionIDKey)
	if at < 0 {
		return ""
	}
	id := body[at+len(decisionIDKey):]
	end := bytes.IndexByte(id, '"')
	if end < 0 {
		return ""
	}
	return string(id[:end])
}

// share formats part as a percentage of whole.
func share(part, whole float64) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*part/whole)
}
