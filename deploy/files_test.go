package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envLine is a variable line of eligo.env: NAME=value, or #NAME=value for
// one documented but not set.
var envLine = regexp.MustCompile(`^(#?)([A-Z][A-Z0-9_]*)=(.*)$`)

// runtimeVars are the variables eligo.env may document that are not flags
// of eligo serve: the Go runtime reads them.
var runtimeVars = map[string]bool{"GOMEMLIMIT": true}

// serveFlag is one flag of `eligo serve`, as its -h prints it.
type serveFlag struct {
	name, env, def string
}

// flagLine and the patterns after it read the flag package's usage: a
// "  -name type" line, then the indented help that names the variable,
// "(env NAME)" or "(env NAME; ...)", and ends with the default when it is
// not the zero value.
var (
	flagLine    = regexp.MustCompile(`^  -([a-z0-9-]+)(?: [a-z]+)?$`)
	flagEnv     = regexp.MustCompile(`\(env ([A-Z][A-Z0-9_]*)[;)]`)
	flagDefault = regexp.MustCompile(`\(default "?(.*?)"?\)$`)
)

// serveFlags runs `eligo serve -h` with an empty environment, so that each
// default printed is the built-in one, and reads every flag.
func serveFlags(t *testing.T, bin string) []serveFlag {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-h")
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("eligo serve -h: %v\n%s", err, out)
	}
	var flags []serveFlag
	for _, line := range strings.Split(string(out), "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			flags = append(flags, serveFlag{name: m[1]})
			continue
		}
		if len(flags) == 0 || !strings.HasPrefix(line, "    \t") {
			continue
		}
		f := &flags[len(flags)-1]
		if m := flagEnv.FindStringSubmatch(line); m != nil {
			f.env = m[1]
		}
		if m := flagDefault.FindStringSubmatch(line); m != nil {
			f.def = m[1]
		}
	}
	if len(flags) < 20 {
		t.Fatalf("read %d flags from eligo serve -h:\n%s", len(flags), out)
	}
	return flags
}

// TestEnvFileListsEveryFlag: eligo.env lists every flag of `eligo serve` by
// its variable, with the flag's default, or, where a deployment sets its
// own value, with the default stated in the comment above ("Default: X.",
// "Default: none" for an empty one); it lists nothing else but the Go
// runtime's variables. A flag added to serve without a line here fails.
func TestEnvFileListsEveryFlag(t *testing.T) {
	t.Parallel()
	flags := serveFlags(t, buildEligo(t))
	file := readEnvFile(t, "eligo.env")
	byName := map[string]envVar{}
	for _, v := range file.vars {
		if _, dup := byName[v.name]; dup {
			t.Errorf("eligo.env: %s twice", v.name)
		}
		byName[v.name] = v
	}
	known := map[string]bool{}
	for _, f := range flags {
		if f.env == "" {
			t.Errorf("--%s names no environment variable in its help", f.name)
			continue
		}
		known[f.env] = true
		def := f.def
		if def == "" && f.name == "decision-spool-fsync" {
			def = "false" // a boolean flag whose default is false prints none
		}
		v, ok := byName[f.env]
		switch {
		case !ok:
			t.Errorf("eligo.env: no %s (--%s, default %q)", f.env, f.name, def)
		case v.value == def:
		case def == "" && strings.Contains(v.comment, "Default: none"):
		case def != "" && strings.Contains(v.comment, "Default: "+def+"."):
		default:
			t.Errorf("eligo.env: %s=%s, and the comment above it does not say the default, %q: %q", f.env, v.value, def, v.comment)
		}
	}
	for _, v := range file.vars {
		if !known[v.name] && !runtimeVars[v.name] {
			t.Errorf("eligo.env: %s is no flag of eligo serve", v.name)
		}
	}
}

// TestHAProxyConfigValid: haproxy.cfg passes `haproxy -c` with the
// addresses set as the guide says, and fails it without them (the test
// can tell a broken file).
func TestHAProxyConfigValid(t *testing.T) {
	t.Parallel()
	haproxy := tool(t, "haproxy")
	check := func(env ...string) ([]byte, error) {
		cmd := exec.Command(haproxy, "-c", "-f", "haproxy.cfg")
		cmd.Env = append(os.Environ(), env...)
		return cmd.CombinedOutput()
	}
	sock := filepath.Join(t.TempDir(), "admin.sock")
	if out, err := check("ELIGO_LB_BIND=127.0.0.1:8080", "ELIGO_LB_ADMIN_SOCKET="+sock,
		"ELIGO_REPLICA_1=10.0.0.11:8080", "ELIGO_REPLICA_2=10.0.0.12:8080", "ELIGO_REPLICA_3=10.0.0.13:8080"); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	} else if strings.Contains(strings.ToLower(string(out)), "warning") {
		t.Errorf("haproxy -c warns:\n%s", out)
	}
	if out, err := check("ELIGO_LB_BIND=", "ELIGO_LB_ADMIN_SOCKET="+sock); err == nil {
		t.Errorf("haproxy -c accepts the file without addresses:\n%s", out)
	}
}

// TestSystemdUnit: eligo.service passes `systemd-analyze verify` without a
// word of complaint (its binary path pointed at a built eligo), and
// `systemd-analyze security` rates its hardening at most 2.0 of 10
// ("OK").
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	analyze := tool(t, "systemd-analyze")
	bin := buildEligo(t)
	raw, err := os.ReadFile("eligo.service")
	if err != nil {
		t.Fatal(err)
	}
	const installed = "/usr/local/bin/eligo"
	if !strings.Contains(string(raw), "ExecStart="+installed+" serve") {
		t.Fatalf("eligo.service does not run %s serve", installed)
	}
	unit := filepath.Join(t.TempDir(), "eligo.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(raw), installed, bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(analyze, "verify", unit).CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if out, err := exec.Command(analyze, "security", "--offline=true", "--threshold=20", "--no-pager", unit).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze security (threshold 2.0): %v\n%s", err, out)
	} else if m := regexp.MustCompile(`Overall exposure level for eligo.service: ([0-9.]+ [A-Z]+)`).FindSubmatch(out); m != nil {
		t.Logf("systemd-analyze security: %s", m[1])
	}
}

// TestAlertRules: alerts.yml passes `promtool check rules`, and every
// metric family it names is one eligo serve exports (docs/metrics.md#metrics
// lists them): an alert on a renamed metric would never fire.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	promtool := tool(t, "promtool")
	if out, err := exec.Command(promtool, "check", "rules", "alerts.yml").CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	raw, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	declared, err := os.ReadFile(filepath.Join("..", "metrics", "metrics.go"))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := os.ReadFile(filepath.Join("..", "metrics", "pool.go"))
	if err != nil {
		t.Fatal(err)
	}
	source := string(declared) + string(pool)
	for _, name := range regexp.MustCompile(`\beligo_[a-z_]+`).FindAllString(string(raw), -1) {
		family := strings.TrimPrefix(name, "eligo_")
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			family = strings.TrimSuffix(family, suffix)
		}
		// The pool's families are declared as db_pool_ + a name.
		if !strings.Contains(source, `"`+family+`"`) && !strings.Contains(source, `name("`+strings.TrimPrefix(family, "db_pool_")+`")`) {
			t.Errorf("alerts.yml names %s, which metrics/ does not declare", name)
		}
	}
}
