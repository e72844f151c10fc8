//go:build nodetools

package livetest_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
)

// TestTypeScriptClientAgainstALiveServer runs
// tools/openapi/consumer/client-live.ts against a live server: list,
// schema, /decide with explanation, explain-failure, /usage with a key, a
// 404 and a 422. tools/openapi/check.sh (make test) compiles it under
// --strict in a fresh consumer project (tools/openapi/build/consumer) into
// which it installed the client's packed tarball, as a user would. Built
// with -tags nodetools: it needs Node.js and those npm packages.
func TestTypeScriptClientAgainstALiveServer(t *testing.T) {
	t.Parallel()
	f, _, _ := liveServer(t)
	key := f.Key(t, "demo", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	out, err := exec.Command("node", "../../tools/openapi/build/consumer/client-live.js", f.URL, key).CombinedOutput()
	if err != nil {
		t.Fatalf("client-live: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"ok":true`) || !strings.Contains(string(out), `"decision":"not_eligible"`) {
		t.Errorf("client-live printed %s", out)
	}
	t.Logf("%s", out)
}
