//go:build nodetools

package eligo_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
)

// TestTypeScriptClientAgainstALiveServer runs tools/openapi/client-live.ts
// (compiled with the committed TypeScript client, under --strict, into
// tools/openapi/build by tools/openapi/check.sh) against a live server:
// list, schema, /decide with explanation, explain-failure, /usage with a
// key, a 404 and a 422. Built with -tags nodetools: it needs Node.js and
// the locked packages of tools/openapi, which check.sh (make test)
// installs.
func TestTypeScriptClientAgainstALiveServer(t *testing.T) {
	t.Parallel()
	f, _, _ := liveServer(t)
	key := f.Key(t, "demo", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	out, err := exec.Command("node", "../../tools/openapi/build/tools/openapi/client-live.js", f.URL, key).CombinedOutput()
	if err != nil {
		t.Fatalf("client-live: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"ok":true`) || !strings.Contains(string(out), `"decision":"not_eligible"`) {
		t.Errorf("client-live printed %s", out)
	}
	t.Logf("%s", out)
}
