package layout_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedFilesMarked keeps .gitattributes whole: every tracked file
// a command writes is marked linguist-generated or linguist-vendored, so
// that a reader (and GitHub's statistics and diffs) does not take it for
// code someone wrote. The files are found, not listed: those that say
// they were generated, those the Makefile's recipes write (an --out or -o
// argument, or what a script given an output folder writes into it), and
// those a test's -update flag says it rewrites. A new generator of any of
// these kinds fails here until its output is marked; and a line of
// .gitattributes that matches no tracked file (a file moved or deleted)
// fails too.
func TestGeneratedFilesMarked(t *testing.T) {
	tracked := gitLines(t, "ls-files")
	isTracked := map[string]bool{}
	for _, f := range tracked {
		isTracked[f] = true
	}
	marked := map[string]bool{}
	for _, line := range gitLines(t, append([]string{"check-attr", "linguist-generated", "linguist-vendored", "--"}, tracked...)...) {
		// "path: attribute: value"
		if f, rest, ok := strings.Cut(line, ": "); ok && strings.HasSuffix(rest, ": set") {
			marked[f] = true
		}
	}

	need := map[string]string{} // tracked file -> why it must be marked
	want := func(p, why string) {
		p = path.Clean(p)
		if isTracked[p] {
			need[p] = why
			return
		}
		for _, f := range tracked { // a folder: everything in it
			if strings.HasPrefix(f, p+"/") {
				need[f] = why
			}
		}
	}
	for _, f := range tracked {
		if saysGenerated(f) {
			want(f, "its first lines say it is generated")
		}
	}
	for p, why := range makefileOutputs(t) {
		want(p, why)
	}
	for p, why := range updateFlagOutputs(t, tracked) {
		want(p, why)
	}
	if len(need) < 10 {
		t.Fatalf("found only %d generated files: the test is not reading the tree", len(need))
	}
	for f, why := range need {
		if !marked[f] {
			t.Errorf("%s is not marked linguist-generated or linguist-vendored in .gitattributes (%s)", f, why)
		}
	}

	raw, err := os.ReadFile(".gitattributes")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(raw), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		pattern := fields[0]
		if !strings.Contains(pattern, "/") {
			pattern = "**/" + pattern
		}
		if len(gitLines(t, "ls-files", "--", ":(glob)"+pattern)) == 0 {
			t.Errorf(".gitattributes:%d: %s matches no tracked file", i+1, fields[0])
		}
	}
}

// gitLines runs git in the repository's root and returns its output's
// non-empty lines.
func gitLines(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", args[0], err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// generatedHeader is how generators announce their output: Go's
// convention ("Code generated ... DO NOT EDIT."), openapi-typescript's
// ("auto-generated ... Do not make direct changes").
var generatedHeader = regexp.MustCompile(`(?i)code generated .* do not edit|auto-generated|do not make direct changes`)

// saysGenerated reports whether the first kilobyte of tracked file f
// carries a generator's header.
func saysGenerated(f string) bool {
	fh, err := os.Open(f)
	if err != nil {
		return false // listed but absent from the work tree
	}
	defer fh.Close()
	head := make([]byte, 1024)
	n, _ := fh.Read(head)
	return generatedHeader.Match(head[:n])
}

// positional is a shell variable bound to a script's argument:
// out="${1:-dist}", go_out="$(realpath -m "$1")".
var positional = regexp.MustCompile(`(?m)^\s*(\w+)="(?:\$\{(\d)(?::-([^}]*))?\}|\$(\d)|\$\(realpath -m "\$(\d)"\))"`)

// makeTarget is a Makefile rule's first line; shellSeparator splits a
// recipe line into its commands.
var (
	makeTarget     = regexp.MustCompile(`^([a-z][\w-]*):`)
	shellSeparator = regexp.MustCompile(`&&|;`)
)

// makefileOutputs lists what the Makefile's recipes write, each with the
// recipe's target: the argument of --out or -o, and for a script called
// with arguments, the paths under an argument bound to a variable that
// the script writes ("$out/js", "$go_out/client.gen.go"), or the whole
// folder when the script starts it afresh (rm -rf "$out").
func makefileOutputs(t *testing.T) map[string]string {
	raw, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	target := ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		if m := makeTarget.FindStringSubmatch(line); m != nil {
			target = m[1]
		}
		if !strings.HasPrefix(line, "\t") {
			continue
		}
		why := "written by make " + target
		dir := "."
		for _, cmd := range shellSeparator.Split(line, -1) {
			words := strings.Fields(cmd)
			if len(words) == 0 {
				continue
			}
			if words[0] == "cd" && len(words) > 1 {
				dir = path.Join(dir, words[1])
				continue
			}
			for i, w := range words[:len(words)-1] {
				if w == "--out" || w == "-o" {
					out[path.Join(dir, words[i+1])] = why
				}
			}
			if !strings.HasSuffix(words[0], ".sh") {
				continue
			}
			script, err := os.ReadFile(path.Join(dir, words[0]))
			if err != nil {
				continue
			}
			args := words[1:]
			for _, m := range positional.FindAllStringSubmatch(string(script), -1) {
				name, n, def := m[1], m[2]+m[4]+m[5], m[3]
				arg := def
				if i := int(n[0] - '1'); i < len(args) {
					arg = args[i]
				}
				if arg == "" {
					continue
				}
				base := path.Join(dir, arg)
				if regexp.MustCompile(`rm -rf "\$` + name + `"`).Match(script) {
					out[base] = why
				}
				for _, w := range regexp.MustCompile(`\$\{?`+name+`\}?/([\w.-]+(?:/[\w.-]+)*)`).FindAllStringSubmatch(string(script), -1) {
					out[path.Join(base, w[1])] = why
				}
			}
		}
	}
	return out
}

// updateFlagOutputs lists the tracked files a test's -update flag says, in
// its usage text, that it rewrites (from the repository's root or the
// test's folder).
func updateFlagOutputs(t *testing.T, tracked []string) map[string]string {
	isTracked := map[string]bool{}
	for _, f := range tracked {
		isTracked[f] = true
	}
	out := map[string]string{}
	flagUsage := regexp.MustCompile(`flag\.Bool\("update", [^,]+, "([^"]*)"`)
	for _, f := range tracked {
		if !strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, m := range flagUsage.FindAllStringSubmatch(string(src), -1) {
			for _, w := range strings.Fields(m[1]) {
				w = strings.TrimRight(w, ",.;:")
				for _, p := range []string{w, path.Join(path.Dir(f), w)} {
					if isTracked[p] {
						out[p] = "rewritten by " + f + " -update"
					}
				}
			}
		}
	}
	return out
}
