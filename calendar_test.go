package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// elapsedTimeOnly lists the functions outside package clock that may read
// time.Now, each with why: they measure how much time passes (a latency, a
// deadline, a rate window, a retention cutoff) or default an injected
// clock of that kind, and no answer depends on the day they run. Anything
// that reads the calendar (a decision date, a publication or draft time, a
// key's expiry) takes its time from the composition root's clock.Clock.
var elapsedTimeOnly = map[string]string{
	"api/middleware.go:observe":                  "request latency",
	"api/middleware.go:gate":                     "read and write deadlines on the connection",
	"api/middleware.go:lingerAfterRefusal":       "a read deadline while the connection drains",
	"api/decide/decide.go:decide":                "the decision's evaluation time (its date comes from the clock)",
	"api/decide/evaluate.go:evaluate":            "the engine's and the planner's time, for the metrics",
	"api/apitest/shared.go:CheckRateHeaders":     "the hourly rate window a test's answer was counted in",
	"solver/z3/solver.go:check":                  "a solver check's duration",
	"authoring/source/extract.go:NewBudget":      "an upload's extraction deadline",
	"authoring/generate.go:RunGeneration":        "a model round's duration",
	"decisionlog/recorder.go:gather":             "the group commit's flush interval",
	"decisionlog/spool/spool.go:create":          "a spool segment's creation time, from which the spool's lag (its oldest record's age) is measured",
	"decisionlog/spool/spool.go:quarantine":      "a unique suffix for a quarantined segment's file name",
	"decisionlog/spool/spool.go:Quarantine":      "a unique suffix for a file of quarantined records",
	"store/storetest/proxy.go:Restore":           "how long a test's proxy waits for its port to be free again",
	"metering/meter.go:withDefaults":             "default of the rolling windows' clock (real elapsed time)",
	"worker/worker.go:New":                       "default of the retention cutoff's clock (real elapsed time)",
	"worker/impact.go:decide":                    "how often a part of an impact run writes its progress and looks for a cancel",
	"store/rulesets.go:PublishRuleset":           "a cut stored without a publication time (store tests); publish always dates cuts from its clock",
	"authoring/llm/llmtest/server.go:completion": "the scripted model's `created` stamp, which nothing reads",
	"cmd/eligo-load/main.go:startServer":         "how long the load generator waits for the server",
	"cmd/eligo-load/drive.go:drive":              "the load run's duration and each request's latency",
	"cmd/eligo-load/main.go:settle":              "how long the load generator waits for a server to go quiet between slices",
}

// TestNothingReadsTheCalendarBehindTheClock finds every use of time.Now
// outside package clock and the functions listed in elapsedTimeOnly: a
// decision date or a stored time read from the machine's clock would make
// an answer change with the day the code runs, which tests cannot control.
func TestNothingReadsTheCalendarBehindTheClock(t *testing.T) {
	found := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "clock", "clients", "node_modules", ".data", "testdata", ".git":
				if path != "." {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, fn := range timeNowUsers(t, path) {
			where := filepath.ToSlash(path) + ":" + fn
			found[where] = true
			if _, ok := elapsedTimeOnly[where]; !ok {
				t.Errorf("%s reads time.Now: take the time from the clock.Clock the composition root hands in, or, if it only measures elapsed time, list it in elapsedTimeOnly with why", where)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for where := range elapsedTimeOnly {
		if !found[where] {
			t.Errorf("elapsedTimeOnly lists %s, which no longer reads time.Now: remove it", where)
		}
	}
}

// timeNowUsers returns the functions of the file at path that mention
// time.Now (a call or the function as a value), by name ("" for a
// package-level declaration).
func timeNowUsers(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	timePkg := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"time"` {
			timePkg = "time"
			if imp.Name != nil {
				timePkg = imp.Name.Name
			}
		}
	}
	if timePkg == "" {
		return nil
	}
	var users []string
	for _, decl := range f.Decls {
		name := ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			name = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Now" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == timePkg {
				users = append(users, name)
				return false
			}
			return true
		})
	}
	return users
}
