// Package layout_test checks that the packages of the module import each
// other in one direction only, as docs/development.md#layout says: engine at the
// bottom, importing nothing of the project; the services above it; the
// HTTP core above the services; the resources above the core; the binary
// on top. A package may import only packages of a lower layer, so no
// import cycle can form later and nothing below api reaches into it.
package layout_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/eligo/eligo"

// layers ranks every package of the module. A new package gets a row
// here, or this test fails and says so.
var layers = map[string]int{
	// The engine's packages rank below zero, each under the one that
	// imports it, so that the rest of the table keeps its numbers.
	"engine/internal/testfiles":   -4,
	"engine/value":                -3,
	"engine/syntax":               -2,
	"engine":                      -1,
	"engine/present":              0,
	"clock":                       0,
	"metrics":                     0,
	"metrics/metricstest":         0,
	"clock/clocktest":             1,
	"solver/z3":                   0,
	"store":                       0,
	"migrations":                  0,
	"rulebook":                    1,
	"impact":                      1, // caseload impact runs: the engine over a stream of cases
	"solver/bound":                0,
	"solver":                      1,
	"folder":                      2,
	"casebank":                    3, // data, and tests over it that read it through folder
	"solver/plan":                 2,
	"solver/verify":               2,
	"solver/solvertest":           3,
	"auth":                        1,
	"decisionlog":                 1,
	"decisionlog/spool":           0,
	"store/storetest":             1,
	"engine/enginetest":           1,
	"metering":                    2,
	"catalog":                     3,
	"lsp":                         3, // the language server: engine, folder and the solver's analysis
	"lsp/jsonrpc":                 0,
	"publish":                     4,
	"authoring":                   5,
	"authoring/source":            1,
	"authoring/source/sourcetest": 0,
	"authoring/review":            3,
	"authoring/llm":               4,
	"authoring/llm/llmtest":       5,
	"worker":                      6,
	"api/redact":                  2,
	"api/connlimit":               0,
	"api/proxy":                   0,
	"api/cors":                    0,
	"api/pydantic":                0,
	"api":                         7,
	"api/resource":                8,
	"api/openapi":                 8,
	"api/decide":                  9,
	"api/rulesets":                9,
	"api/rulebooks":               9,
	"api/projects":                9,
	"api/usage":                   9,
	"api/answerlogging":           9,
	"api/wiring":                  9,  // the composition root: the services and the core server over them
	"api/apitest":                 10, // the test harness: the services and server of api/wiring, the resources a test mounts
	"api/signin":                  9,
	"api/apitest/call":            0,
	"web":                         0, // the console's embedded files and their handler; imports nothing of the project
	"api/routes":                  10,
	"cmd/eligo":                   11,
	"cmd/eligo-load":              11,
	"cmd/eligo-evalgen":           11,
	"docs":                        11, // the manual and the tests that keep it true; no code
	"deploy":                      11, // the deployment to copy and the tests that run it; no code
	// The generated Go client is a module of its own (clients/go/go.mod),
	// so no package of the service can import it; its live tests, and the
	// TypeScript client's, rank above everything because they import the
	// client and the whole server.
	"clients/livetest": 12,
}

func TestImportsPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module+"/")
		if !ok {
			continue // the module root holds only this test
		}
		rank, known := layers[pkg]
		if !known {
			t.Errorf("package %s has no layer: add it to layers", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			if depRank, known := layers[dep]; known && depRank >= rank {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point to a lower layer", pkg, rank, dep, depRank)
			}
		}
	}
	if seen < 15 {
		t.Fatalf("go list found %d packages of the module; the check is not looking at the tree", seen)
	}
}

// TestNoServiceReachesTheHTTPLayer states the layout's two rules directly,
// over transitive dependencies: the engine depends on no package of the
// project but its own (it is usable as a library on its own: the CLI's
// check, test and diff run offline), no service depends on any api package,
// and the web console's files depend on nothing of the project (api/routes
// mounts them; their sign-in is api/signin). A package may always use the
// packages below its own directory.
func TestNoServiceReachesTheHTTPLayer(t *testing.T) {
	for pkg, forbidden := range map[string]string{
		"engine":   module + "/",
		"web":      module + "/",
		"catalog":  module + "/api",
		"publish":  module + "/api",
		"metering": module + "/api",
		"worker":   module + "/api",
	} {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			own := dep == module+"/"+pkg || strings.HasPrefix(dep, module+"/"+pkg+"/")
			if strings.HasPrefix(dep, forbidden) && !own {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
