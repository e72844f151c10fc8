package deploy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring/llm/llmtest"
	"github.com/eligo/eligo/metrics/metricstest"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// uuidPattern is a request id HAProxy's %[uuid] made.
var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// meteredBudget is the starter tier's /decide budget the replicas run
// with: small enough to exhaust in a moment through the balancer.
const meteredBudget = 300

// TestReplicas runs the deployment of deploy/ on loopback: PostgreSQL, three
// `eligo serve` processes (the built binary, each with its own decision
// spool and metrics listener, configured by eligo.env) and HAProxy with
// haproxy.cfg as it is, checking each replica on /readyz. Through the
// balancer it drives /decide on a casebank ruleset and authoring calls,
// and shows what docs/deployment.md#deployment-and-replicas promises of replicas:
//
//   - a key revoked with `eligo keys revoke` is refused by all three;
//   - a budget is held across the three within the documented slack,
//     (K − 1) × S over it;
//   - a generation started on one process is reported running by the
//     others, and cancelled through another;
//   - under load, one process is killed with SIGKILL and the other two are
//     rolled (one drained at the balancer, the other by its own drain delay; SIGTERM, restarted): no 5xx but for
//     requests in flight at the kill, and every decision answered 200 is in
//     the decisions table once the spools have shipped (the killed
//     replica's by `eligo decisions ship`).
//
// The load is bounded in time: it runs while one replica is killed and
// two are rolled, seconds on a 2-core machine, each wait capped.
func TestReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bin := buildEligo(t)
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()

	// Private: a key refused on the open surface falls back to anonymous
	// access (docs/api.md#keys-and-access), which a public ruleset would
	// grant; a private one answers the key's refusal.
	rules := filepath.Join("..", "casebank", "us-fmla-employee", "us-fmla-employee.rules")
	if code, out, errOut := runEligo(t, bin, "publish", "--database-url", dbURL, "--tenant", "demo", rules,
		"--slug", "demo/fmla"); code != 0 {
		t.Fatalf("publish exited %d: %s %s", code, out, errOut)
	}
	newKey := func(name, tier, scopes string) string {
		t.Helper()
		code, key, errOut := runEligo(t, bin, "keys", "create", "--database-url", dbURL, "--tenant", "demo",
			"--name", name, "--tier", tier, "--scopes", scopes)
		if code != 0 {
			t.Fatalf("keys create %s exited %d: %s", name, code, errOut)
		}
		return strings.TrimSpace(key)
	}
	loadKey := newKey("load", "internal", "decide,projects:read,projects:write,rulesets:read")
	meteredKey := newKey("metered", "starter", "decide")
	revokedKey := newKey("revoked", "internal", "decide")

	// A model that answers nothing until its caller gives up: a generation
	// calling it stays running.
	modelCalled := make(chan struct{}, 1)
	model := llmtest.NewServer(t, llmtest.Turn{Hang: true, Check: func(llmtest.Recorded) { modelCalled <- struct{}{} }})

	env := append(os.Environ(), readEnvFile(t, "eligo.env").active()...)
	dir := t.TempDir()
	replicas := make([]*replica, 3)
	for i := range replicas {
		name := fmt.Sprintf("eligo%d", i+1)
		replicas[i] = &replica{name: name, bin: bin, env: env,
			spool: filepath.Join(dir, name+"-spool"), logPath: filepath.Join(dir, name+".log"),
			args: []string{"--database-url", dbURL, "--trusted-proxies", "127.0.0.1/32",
				"--budgets", fmt.Sprintf("starter.decide=%d", meteredBudget),
				"--model-base-url", model.URL(), "--models", "scripted:128000",
				// A revocation must reach the others by notification,
				// long before a cached key row would expire.
				"--key-cache-ttl", "10m"}}
	}
	t.Cleanup(func() {
		for _, r := range replicas {
			r.kill()
		}
	})
	for _, r := range replicas {
		r.start(t)
	}
	lb := startBalancer(t, replicas)
	for _, r := range replicas {
		lb.waitStatus(t, r.name, "UP")
	}
	// Keep-alive connections, one per caller, as a real client pool holds.
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	decideBody := func(n int) string {
		return fmt.Sprintf(`{"ruleset_id":"demo/fmla","field_values":{"employment.months_employed":%d}}`, n%40)
	}
	var acknowledged []string // decision ids answered 200, from every phase
	decide := func(base, key string, n int) (int, string) {
		status, body := call(client, http.MethodPost, base+"/api/v1/public/decide", key, nil, decideBody(n))
		if status != http.StatusOK {
			return status, string(body)
		}
		var env struct {
			DecisionID string `json:"decision_id"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.DecisionID == "" {
			t.Fatalf("decide answered 200 without a decision id: %s", body)
		}
		acknowledged = append(acknowledged, env.DecisionID)
		return status, env.DecisionID
	}
	for i := range 30 {
		if status, body := decide(lb.url, loadKey, i); status != http.StatusOK {
			t.Fatalf("decide through the balancer: %d %s", status, body)
		}
	}
	// The balancer gives every request an id of its own, replacing the
	// caller's, which the replica (trusting the balancer) keeps and
	// answers with, so that HAProxy's log and the replica's name the same
	// request.
	for _, sent := range []string{"", "chosen-by-the-caller"} {
		req, err := http.NewRequest(http.MethodGet, lb.url+"/readyz", nil)
		if err != nil {
			t.Fatal(err)
		}
		if sent != "" {
			req.Header.Set("X-Request-Id", sent)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if id := res.Header.Get("X-Request-Id"); !uuidPattern.MatchString(id) {
			t.Errorf("X-Request-Id through the balancer, %q sent: %q, want the UUID HAProxy set", sent, id)
		}
	}

	t.Run("revocation", func(t *testing.T) {
		// Each replica caches the key's row...
		for _, r := range replicas {
			if status, body := decide("http://"+r.addr, revokedKey, 1); status != http.StatusOK {
				t.Fatalf("%s: %d %s", r.name, status, body)
			}
		}
		// ...and refuses it once revoked by another process.
		prefix, _, err := auth.ParseKey(revokedKey)
		if err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runEligo(t, bin, "keys", "revoke", "--database-url", dbURL, prefix); code != 0 {
			t.Fatalf("keys revoke exited %d: %s %s", code, out, errOut)
		}
		for _, r := range replicas {
			waitFor(t, r.name+" to refuse the revoked key", func() (bool, string) {
				status, body := decide("http://"+r.addr, revokedKey, 1)
				return status == http.StatusUnauthorized, fmt.Sprintf("%d %s", status, body)
			})
		}
	})

	t.Run("metering", func(t *testing.T) {
		// Past the budget through the balancer, eight at a time: the
		// three replicas together admit at least the budget (a process
		// never refuses what fits) and at most (K − 1) × S over it
		// (docs/limits.md#how-counting-works-and-the-slack).
		const sent = meteredBudget + 100
		var admitted, refused, other atomic.Int64
		var next atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for next.Add(1) <= sent {
					status, body := call(client, http.MethodPost, lb.url+"/api/v1/public/decide", meteredKey, nil, decideBody(1))
					switch status {
					case http.StatusOK:
						admitted.Add(1)
					case http.StatusTooManyRequests:
						refused.Add(1)
					default:
						other.Add(1)
						t.Errorf("metered decide: %d %s", status, body)
					}
				}
			})
		}
		wg.Wait()
		slack := int64(math.Max(1, math.Ceil(meteredBudget*0.01)))
		maxOver := int64(len(replicas)-1) * slack
		t.Logf("budget %d, slack %d per process: %d admitted, %d refused", meteredBudget, slack, admitted.Load(), refused.Load())
		if admitted.Load() < meteredBudget || admitted.Load() > meteredBudget+maxOver {
			t.Errorf("%d admitted across three replicas, want %d to %d", admitted.Load(), meteredBudget, meteredBudget+maxOver)
		}
		// Each replica counted what it admitted and refused, and together
		// they counted what the callers saw.
		var counted [2]float64
		for _, r := range replicas {
			g := metricstest.Scrape(t, r.metrics)
			for i, result := range []string{"admitted", "refused"} {
				counted[i] += metricstest.Sum(t, g, "eligo_metering_requests_total",
					map[string]string{"class": "decide", "tier": "starter", "result": result})
			}
		}
		if counted[0] != float64(admitted.Load()) || counted[1] != float64(refused.Load()) {
			t.Errorf("the replicas' eligo_metering_requests_total: %v admitted, %v refused; the callers saw %d and %d",
				counted[0], counted[1], admitted.Load(), refused.Load())
		}
	})

	// Authoring through the balancer: a project with a source, for the
	// generation below and the load's authoring calls.
	project := createProject(t, client, lb.url+"/api/v1/public", loadKey)

	t.Run("generation", func(t *testing.T) {
		started, starter := replicas[0], replicas[0].root()+project
		status, body := call(client, http.MethodPost, starter+"/generate", loadKey,
			map[string]string{"X-Provider-Key": "sk-replica-test"}, "{}")
		if status != http.StatusAccepted {
			t.Fatalf("generate on %s: %d %s", started.name, status, body)
		}
		select {
		case <-modelCalled:
		case <-time.After(time.Minute):
			t.Fatal("the generation did not call the model within a minute")
		}
		var job string
		for _, r := range replicas {
			st := projectStatus(t, client, r.root()+project, loadKey)
			if st.State != "running" || st.JobID == "" || (job != "" && st.JobID != job) {
				t.Fatalf("status through %s, while the generation started on %s runs: %+v", r.name, started.name, st)
			}
			job = st.JobID
		}
		// Cancelled through another replica, it is over for all three.
		status, body = call(client, http.MethodPost, replicas[1].root()+project+"/generation/cancel", loadKey, nil,
			`{"job_id":"`+job+`"}`)
		if status != http.StatusOK || !strings.Contains(string(body), `"cancelled"`) {
			t.Fatalf("cancel through %s: %d %s", replicas[1].name, status, body)
		}
		for _, r := range replicas {
			if st := projectStatus(t, client, r.root()+project, loadKey); st.State != "failed" || st.Outcome != "cancelled" {
				t.Fatalf("status through %s after the cancel: %+v", r.name, st)
			}
		}
		// The process running it stops its model call.
		waitFor(t, "the cancelled generation's worker to stop", func() (bool, string) {
			st := projectStatus(t, client, starter, loadKey)
			return st.WorkerLifecycle == "stopped", fmt.Sprintf("%+v", st)
		})
		// Only the process that accepted it ran it (it alone held the
		// provider key): its generation families moved, no other's did.
		for _, r := range replicas {
			g := metricstest.Scrape(t, r.metrics)
			rounds := metricstest.Sum(t, g, "eligo_generation_rounds_total", map[string]string{"model": "scripted"})
			ended := metricstest.Sum(t, g, "eligo_generations_total", map[string]string{"model": "scripted", "outcome": "cancelled"})
			if want := r == started; (rounds >= 1) != want || (ended == 1) != want {
				t.Errorf("%s: eligo_generation_rounds_total %v, eligo_generations_total{outcome=cancelled} %v (ran it: %v)", r.name, rounds, ended, want)
			}
		}
	})

	t.Run("kill and roll under load", func(t *testing.T) {
		load := startLoad(client, lb.url+"/api/v1/public", loadKey, project, decideBody)
		killed := replicas[0]
		load.waitAcknowledged(t, 300)
		killAt := time.Now()
		killed.killNow(t)
		deadAt := time.Now()
		t.Logf("%s killed after %d decisions", killed.name, load.acknowledgedCount())
		lb.waitStatus(t, killed.name, "DOWN")
		load.waitAcknowledged(t, load.acknowledgedCount()+200)

		// A replica that will not come back: its spool is drained from
		// another machine (here, the test).
		code, out, errOut := runEligo(t, bin, "decisions", "ship", "--database-url", dbURL, "--spool", killed.spool)
		if code != 0 || !strings.HasPrefix(out, "shipped ") {
			t.Fatalf("decisions ship exited %d: %s %s", code, out, errOut)
		}
		t.Logf("%s's spool: %s", killed.name, strings.TrimSpace(out))
		killed.start(t)
		lb.waitStatus(t, killed.name, "UP")

		// The rolling restart of the other two, one at a time: the first
		// drained at the balancer by hand, the second by its own drain
		// delay alone (eligo.env's ELIGO_DRAIN_DELAY: /readyz fails, the
		// balancer takes it out, then it shuts down).
		for i, r := range replicas[1:] {
			if i == 0 {
				lb.drain(t, r.name)
			}
			r.stop(t)
			r.start(t)
			lb.ready(t, r.name)
			load.waitAcknowledged(t, load.acknowledgedCount()+200)
		}
		results := load.stop()

		// A request was in flight on the killed process if it began before
		// the process was gone and ended after the signal was sent. Such a
		// request may fail: HAProxy answers 502, or closes the caller's
		// connection without an answer, as the server did. No other may.
		var ok, failed, inFlightAtKill int
		for _, res := range results {
			inFlight := res.start.Before(deadAt) && res.end.After(killAt)
			if inFlight {
				inFlightAtKill++
			}
			switch {
			case res.status == http.StatusOK:
				ok++
			case (res.status >= 500 || res.status == 0) && inFlight:
				failed++
				t.Logf("in flight at the kill: %s %s: %d %s", res.method, res.path, res.status, res.body)
			default:
				t.Errorf("%s %s: %d %s (started %v after the kill)", res.method, res.path, res.status, res.body,
					res.start.Sub(killAt).Round(time.Millisecond))
			}
		}
		acknowledged = append(acknowledged, load.acknowledged()...)
		t.Logf("%d requests: %d answered; %d failed, of %d in flight while %s was being killed (%v)", len(results), ok, failed,
			inFlightAtKill, killed.name, deadAt.Sub(killAt).Round(time.Millisecond))
		// Each connection has at most one request in flight, so at most
		// one per connection can have been on the killed process.
		if failed > loadConnections {
			t.Errorf("%d requests failed, more than the load's %d connections could have had on %s", failed, loadConnections, killed.name)
		}
		// HAProxy saw no answer break off on the two rolled replicas, and
		// none of them sent a 5xx.
		for name, st := range lb.stats(t) {
			t.Logf("haproxy: %s: %+v", name, st)
			if name != killed.name && (st.eresp > 0 || st.srvAbrt > 0 || st.hrsp5 > 0) {
				t.Errorf("haproxy: %s, rolled with SIGTERM: %d answers failed, %d aborted, %d 5xx", name, st.eresp, st.srvAbrt, st.hrsp5)
			}
		}
	})

	// The revoked key stays refused by processes started since.
	for _, r := range replicas {
		if status, body := decide("http://"+r.addr, revokedKey, 1); status != http.StatusUnauthorized {
			t.Errorf("%s after the roll: the revoked key got %d %s", r.name, status, body)
		}
	}

	// SIGTERM ships what each spool holds; then every decision answered
	// 200 is in the table.
	for _, r := range replicas {
		r.stop(t)
	}
	missing, err := store.New(pool).MissingDecisionIDs(ctx, acknowledged)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d decisions answered 200 have no record, e.g. %s", len(missing), len(acknowledged), missing[0])
	}
	t.Logf("%d decisions answered 200, every one recorded", len(acknowledged))
}

// createProject creates a project with one source through base and
// returns its path, /projects/{id}.
func createProject(t *testing.T, client *http.Client, base, key string) string {
	t.Helper()
	status, body := call(client, http.MethodPost, base+"/projects/", key, nil,
		`{"name":"Grant","section_id":"grant","source_text":"","test_cases":[{"name":"adult","field_values":{"person.age":20},"expected_outcome":"eligible"}]}`)
	if status != http.StatusCreated {
		t.Fatalf("create a project: %d %s", status, body)
	}
	var p struct {
		ProjectID string `json:"project_id"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.ProjectID == "" {
		t.Fatalf("create a project: %s", body)
	}
	path := "/projects/" + url.PathEscape(p.ProjectID)
	status, body = call(client, http.MethodPost, base+path+"/sources", key, nil,
		`{"filename":"grant.md","text":"Grant Act.\n\nSection 1. A person qualifies for the grant if the person is at least 18 years old.\n","url":"https://laws.example.org/grant","licence":"CC-BY-4.0"}`)
	if status != http.StatusCreated {
		t.Fatalf("upload a source: %d %s", status, body)
	}
	return path
}

// generationStatus is the part of GET /projects/{id}/status the test reads.
type generationStatus struct {
	State           string `json:"state"`
	JobID           string `json:"job_id"`
	Outcome         string `json:"outcome"`
	WorkerLifecycle string `json:"worker_lifecycle"`
}

func projectStatus(t *testing.T, client *http.Client, project, key string) generationStatus {
	t.Helper()
	status, body := call(client, http.MethodGet, project+"/status", key, nil, "")
	var st generationStatus
	if status != http.StatusOK || json.Unmarshal(body, &st) != nil {
		t.Fatalf("status %s: %d %s", project, status, body)
	}
	return st
}

// waitFor polls cond until it holds, for at most a minute; cond also
// says what it saw, for the failure message.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	start := time.Now()
	for {
		ok, saw := cond()
		if ok {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("waited a minute for %s; last saw %s", what, saw)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
}

// loadResult is one request of the load.
type loadResult struct {
	method, path string
	start, end   time.Time
	status       int
	body         string // the answer's start, when it was not a success
	decisionID   string
}

// load is requests through the balancer from several connections until
// stopped: /decide from six, authoring calls (read the project, write its
// draft) from one.
type load struct {
	stopped chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []loadResult
	acks    int
}

// loadConnections is how many callers the load runs at once.
const loadConnections = 7

const draftBody = `{"rules":"ruleset \"demo/grant\"\nsection grant\nfield person.age int\ngroup age all \"Age\" {\n  criterion adult \"At least 18\" {\n    person.age >= 18\n  }\n}\n"}`

func startLoad(client *http.Client, base, key, project string, decideBody func(int) string) *load {
	l := &load{stopped: make(chan struct{})}
	for w := range loadConnections {
		l.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-l.stopped:
					return
				default:
				}
				res := loadResult{method: http.MethodPost, path: "/decide", start: time.Now()}
				var body []byte
				switch {
				case w > 0:
					res.status, body = call(client, res.method, base+res.path, key, nil, decideBody(w*1000+i))
				case i%2 == 0:
					res.method, res.path = http.MethodGet, project
					res.status, body = call(client, res.method, base+res.path, key, nil, "")
				default:
					res.method, res.path = http.MethodPut, project+"/draft"
					res.status, body = call(client, res.method, base+res.path, key, nil, draftBody)
				}
				res.end = time.Now()
				if res.status == http.StatusOK && res.path == "/decide" {
					var env struct {
						DecisionID string `json:"decision_id"`
					}
					if json.Unmarshal(body, &env) == nil {
						res.decisionID = env.DecisionID
					}
				}
				if res.status != http.StatusOK {
					res.body = string(body[:min(len(body), 300)])
				}
				l.mu.Lock()
				l.results = append(l.results, res)
				if res.decisionID != "" {
					l.acks++
				}
				l.mu.Unlock()
			}
		})
	}
	return l
}

func (l *load) acknowledgedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

// waitAcknowledged waits until n decisions have been answered 200.
func (l *load) waitAcknowledged(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); l.acknowledgedCount() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d decisions answered in two minutes, want %d", l.acknowledgedCount(), n)
		}
	}
}

// stop ends the load and returns every request's result.
func (l *load) stop() []loadResult {
	close(l.stopped)
	l.wg.Wait()
	return l.results
}

// acknowledged is the decision ids answered 200.
func (l *load) acknowledged() []string {
	var ids []string
	for _, r := range l.results {
		if r.decisionID != "" {
			ids = append(ids, r.decisionID)
		}
	}
	return ids
}

// envFile is deploy/eligo.env read as systemd's EnvironmentFile= reads it:
// NAME=value lines; "#NAME=value" lines are documented but not set.
type envFile struct {
	vars []envVar
}

type envVar struct {
	name, value string
	set         bool   // false for a "#NAME=value" line
	comment     string // the comment lines just above it
}

func readEnvFile(t *testing.T, path string) envFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out envFile
	var comment []string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if m := envLine.FindStringSubmatch(line); m != nil {
			out.vars = append(out.vars, envVar{name: m[2], value: m[3], set: m[1] == "", comment: strings.Join(comment, " ")})
			comment = nil
			continue
		}
		if c, ok := strings.CutPrefix(line, "#"); ok {
			comment = append(comment, strings.TrimSpace(c))
			continue
		}
		comment = nil
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// active is the NAME=value pairs the file sets.
func (e envFile) active() []string {
	var out []string
	for _, v := range e.vars {
		if v.set {
			out = append(out, v.name+"="+v.value)
		}
	}
	return out
}
