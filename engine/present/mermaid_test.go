package present

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it under
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

// graphGoldens are the rulesets whose graph and diagram are kept as golden
// files: three casebank rulesets of different shapes and one written to
// break a diagram.
var graphGoldens = []struct{ name, path, values, date string }{
	{"us-fmla-employee", "../../casebank/us-fmla-employee/us-fmla-employee.rules", "", ""},
	{"eu-blue-card-de", "../../casebank/eu-blue-card-de/eu-blue-card-de.rules", "", ""},
	{"uk-state-pension-age", "../../casebank/uk-state-pension-age/uk-state-pension-age.rules", "", ""},
	{"adversarial", "testdata/golden/adversarial.rules", "", ""},
	{"values", "testdata/golden/values.rules", "", ""},
	{"values-overlay", "testdata/golden/values.rules",
		`{"income.earned": 1234.56, "income.other": 100, "household.size": 2, "household.region": "south"}`, "2025-06-01"},
	{"us-fmla-employee-overlay", "../../casebank/us-fmla-employee/us-fmla-employee.rules",
		`{"employment.employer_type": "private", "employment.months_employed": 14, "employment.hours_12_months": 900}`, "2026-01-15"},
	{"uk-state-pension-age-overlay", "../../casebank/uk-state-pension-age/uk-state-pension-age.rules",
		`{"person.date_of_birth": "1954-03-02"}`, "2021-01-15"},
}

func TestGraphGolden(t *testing.T) {
	t.Parallel()
	for _, gg := range graphGoldens {
		r := compilePath(t, gg.path)
		var in *engine.Inputs
		var res *engine.Result
		if gg.values != "" {
			var err error
			if in, err = r.Convert([]byte(gg.values)); err != nil {
				t.Fatal(err)
			}
			date, _ := value.ParseDate(gg.date)
			res = r.Evaluate(in, engine.Options{DecisionDate: date})
		}
		g := NewGraph(r, "", in, res)
		var js bytes.Buffer
		enc := json.NewEncoder(&js)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(g); err != nil {
			t.Fatal(err)
		}
		golden(t, gg.name+".graph.json", js.Bytes())
		m := g.Mermaid()
		golden(t, gg.name+".mmd", []byte(m))
		checkMermaid(t, gg.name, m)
		checkMermaid(t, gg.name+" prefixed", prefixedIDs(g, `we"ird/[slug] end|<x>:`).Mermaid())
	}
}

// prefixedIDs is g with every node id and edge end prefixed, as a
// rulebook's composed graph prefixes them with a section slug: the diagram
// must stay well formed whatever text the ids carry.
func prefixedIDs(g *Graph, prefix string) *Graph {
	out := *g
	out.Nodes = slices.Clone(g.Nodes)
	for i := range out.Nodes {
		out.Nodes[i].ID = prefix + out.Nodes[i].ID
	}
	out.Edges = slices.Clone(g.Edges)
	for i := range out.Edges {
		out.Edges[i].Source, out.Edges[i].Target = prefix+out.Edges[i].Source, prefix+out.Edges[i].Target
	}
	return &out
}

var (
	mermaidNodeLine = regexp.MustCompile(`^  ([A-Za-z0-9_]+)(\["[^"\[\]{}\n]*"\]|\{\{"[^"\[\]{}\n]*"\}\})$`)
	mermaidEdgeLine = regexp.MustCompile(`^  ([A-Za-z0-9_]+) --> ([A-Za-z0-9_]+)$`)
	mermaidClass    = regexp.MustCompile(`^  (classDef (satisfied|not_satisfied|pending) fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}|class [A-Za-z0-9_,]+ (satisfied|not_satisfied|pending))$`)
)

// checkMermaid parses the diagram line by line: a header, then only node
// lines `id["label"]` (a value's `id{{"label"}}`) with safe ids and labels, edges between declared
// ids, and status classes. Anything an author's text smuggled in would
// show up as a line of none of these shapes.
func checkMermaid(t *testing.T, name, m string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(m, "\n"), "\n")
	if lines[0] != "flowchart LR" {
		t.Fatalf("%s: first line %q", name, lines[0])
	}
	declared := map[string]bool{}
	for _, l := range lines[1:] {
		if sm := mermaidNodeLine.FindStringSubmatch(l); sm != nil {
			if declared[sm[1]] {
				t.Errorf("%s: node id %s declared twice", name, sm[1])
			}
			if strings.HasPrefix(strings.ToLower(sm[1]), "end") {
				t.Errorf("%s: node id %s starts with the keyword end", name, sm[1])
			}
			declared[sm[1]] = true
			continue
		}
		if sm := mermaidEdgeLine.FindStringSubmatch(l); sm != nil {
			if !declared[sm[1]] || !declared[sm[2]] {
				t.Errorf("%s: edge between undeclared nodes: %q", name, l)
			}
			continue
		}
		if !mermaidClass.MatchString(l) {
			t.Errorf("%s: unexpected line %q", name, l)
		}
	}
}

// The adversarial titles come out as entity codes, never raw.
func TestMermaidEscapesAdversarialTitles(t *testing.T) {
	t.Parallel()
	r := compilePath(t, "testdata/golden/adversarial.rules")
	m := NewGraph(r, "", nil, nil).Mermaid()
	for _, want := range []string{
		`criterion_dq["Title with #quot;double quotes#quot; and \ backslash"]`,
		`#91;#91; opens #93;#91; #124;pipe#124; #35;35; #35;quot; #38;amp; #96;tick#96;`,
		`#60;img src=x onerror=alert(1)#62; #38; #60;br/#62;`,
		`Ünïcödé — 名前 🎉`,
		`field_end_flag["flag"]`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("diagram lacks %q:\n%s", want, m)
		}
	}
}

func TestMermaidLabel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain`:                     `plain`,
		`a "b"`:                     `a #quot;b#quot;`,
		"line\nbreak\r\tx":          "line break  x",
		"sep\u2028para\u2029\u0085": "sep para  ",
		`[x]|{y}<z>#&` + "`":        `#91;x#93;#124;#123;y#125;#60;z#62;#35;#38;#96;`,
		`#quot;`:                    `#35;quot;`,
		"名前 🎉":                      "名前 🎉",
		"bad \xff utf8":             "bad \ufffd utf8",
		"a\u202eb\u2066c":           "abc",
	} {
		if got := mermaidLabel(in); got != want {
			t.Errorf("mermaidLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkLabel asserts what any escaped label must satisfy: none of the
// characters that end or reshape a quoted label, no line break, valid
// UTF-8, and every # opening an entity code.
func checkLabel(t *testing.T, in, got string) {
	t.Helper()
	if strings.ContainsAny(got, "\"[]\n\r\u2028\u2029\u202e|<>`{}") || !utf8.ValidString(got) {
		t.Fatalf("mermaidLabel(%q) = %q holds a raw unsafe character", in, got)
	}
	for i := 0; i < len(got); i++ {
		if got[i] != '#' {
			continue
		}
		end := strings.IndexByte(got[i:], ';')
		if end < 0 || !regexp.MustCompile(`^#(quot|[0-9]+);$`).MatchString(got[i:i+end+1]) {
			t.Fatalf("mermaidLabel(%q) = %q has a stray #", in, got)
		}
		i += end
	}
}

// Property: random strings over an alphabet rich in risky characters
// always give safe labels.
func TestMermaidLabelProperty(t *testing.T) {
	t.Parallel()
	alphabet := []rune("\"'[](){}|<>#;&`\\\n\r\t -->ab1é名🎉\u2028\u0085\u202e\x00\x7f")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		n := rng.IntN(40)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		in := string(rs)
		checkLabel(t, in, mermaidLabel(in))
	}
}

func FuzzMermaidLabel(f *testing.F) {
	for _, s := range []string{`a "b" [c]`, "x\ny", "#quot;", "\xff", "名前 🎉 \u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkLabel(t, s, mermaidLabel(s))
	})
}

// Node ids that sanitise alike stay distinct.
func TestMermaidIDsStayUnique(t *testing.T) {
	t.Parallel()
	g := &Graph{Nodes: []GraphNode{
		{ID: "field:a.b_c", Type: NodeTypeField, Label: "1"},
		{ID: "field:a_b.c", Type: NodeTypeField, Label: "2"},
		{ID: "field:a_b_c", Type: NodeTypeField, Label: "3"},
		{ID: "end", Type: NodeTypeOutcome, Label: "4"},
		{ID: "", Type: NodeTypeGroup, Label: "5"},
	}, Edges: []GraphEdge{{Source: "field:a_b.c", Target: "end", Type: EdgeGroupToOutcome}}}
	m := g.Mermaid()
	checkMermaid(t, "collisions", m)
	for _, want := range []string{`field_a_b_c["1"]`, `field_a_b_c_2["2"]`, `field_a_b_c_3["3"]`, `n_end["4"]`, `n_["5"]`, `field_a_b_c_2 --> n_end`} {
		if !strings.Contains(m, want) {
			t.Errorf("diagram lacks %q:\n%s", want, m)
		}
	}
}
