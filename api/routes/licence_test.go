package routes

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The description and the generated clients are Apache-2.0, so that users
// may generate and ship clients: each document says so in the form its
// version allows (3.1 by SPDX identifier, never beside a url; 3.0 by
// url), and each client carries the licence's text and names it.
func TestDocumentAndClientsAreApache2(t *testing.T) {
	t.Parallel()
	want := map[string]map[string]any{
		"3.1": {"name": "Apache 2.0", "identifier": "Apache-2.0"},
		"3.0": {"name": "Apache 2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"},
	}
	for version, licence := range want {
		info := published(t, version)["info"].(map[string]any)
		if got := info["license"]; !reflect.DeepEqual(got, licence) {
			t.Errorf("%s: info.license is %v, want %v", version, got, licence)
		}
		if contact, _ := info["contact"].(map[string]any); contact["name"] == nil {
			t.Errorf("%s: info.contact is %v, want a name", version, info["contact"])
		}
	}
	for _, path := range []string{"../../clients/go/LICENSE", "../../clients/ts/LICENSE"} {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "Apache License\n                           Version 2.0, January 2004") {
			t.Errorf("%s is not the Apache License 2.0", path)
		}
	}
	var pkg struct {
		License string `json:"license"`
	}
	b, err := os.ReadFile("../../clients/ts/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.License != "Apache-2.0" {
		t.Errorf("clients/ts/package.json: license %q, want Apache-2.0", pkg.License)
	}
}
