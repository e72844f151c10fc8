package auth

import (
	"crypto/sha256"
	"strings"
	"testing"
)

func TestGeneratedKeysParseBackAndDiffer(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		k, err := GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if seen[k.Text] {
			t.Fatalf("key drawn twice: %s", k.Text)
		}
		seen[k.Text] = true
		prefix, hash, err := ParseKey(k.Text)
		if err != nil || prefix != k.Prefix || hash != k.Hash || hash != sha256.Sum256([]byte(k.Text)) {
			t.Fatalf("ParseKey(%q) = %q, %x, %v; generated prefix %q", k.Text, prefix, hash, err, k.Prefix)
		}
		if !strings.HasPrefix(k.Text, "elg_"+k.Prefix+"_") || len(k.Text) != len("elg_")+prefixLen+1+43 {
			t.Fatalf("unexpected key shape %q", k.Text)
		}
	}
}

func TestParseKeyRejectsNearMisses(t *testing.T) {
	t.Parallel()
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"", "elg", "elg_", "elg__", k.Text[:len(k.Text)-1], k.Text + "A",
		strings.Replace(k.Text, "elg_", "elx_", 1),
		strings.Replace(k.Text, k.Prefix, strings.ToUpper(k.Prefix), 1),
		"elg_abc_" + strings.Repeat("A", 43),
	} {
		if _, _, err := ParseKey(bad); err != ErrInvalidKey {
			t.Errorf("ParseKey(%q) = %v, want ErrInvalidKey", bad, err)
		}
	}
}

func TestNormalizePrefix(t *testing.T) {
	t.Parallel()
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{k.Prefix, "elg_" + k.Prefix, k.Text, " " + k.Prefix + "\n"} {
		if got, err := NormalizePrefix(in); err != nil || got != k.Prefix {
			t.Errorf("NormalizePrefix(%q) = %q, %v; want %q", in, got, err, k.Prefix)
		}
	}
	if _, err := NormalizePrefix("short"); err == nil {
		t.Error("NormalizePrefix accepted a short prefix")
	}
}

func TestParseScopes(t *testing.T) {
	t.Parallel()
	got, err := ParseScopes("rulesets:read, decide,decide")
	if err != nil || len(got) != 2 || got[0] != ScopeDecide || got[1] != ScopeRulesetsRead {
		t.Fatalf("ParseScopes = %v, %v", got, err)
	}
	all, err := ParseScopes("all")
	if err != nil || len(all) != 11 {
		t.Fatalf("ParseScopes(all) = %v, %v; want the eleven scopes", all, err)
	}
	for _, bad := range []string{"", "decide,admin", "rulesets:delete"} {
		if _, err := ParseScopes(bad); err == nil {
			t.Errorf("ParseScopes(%q) accepted", bad)
		}
	}
}

// FuzzParseKey checks that arbitrary text never panics the parser and that
// whatever it accepts is the hash of exactly that text.
func FuzzParseKey(f *testing.F) {
	k, err := GenerateKey()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(k.Text)
	f.Add("elg_abcdefgh_")
	f.Add("elg_abcdefgh_" + strings.Repeat("_", 43))
	f.Fuzz(func(t *testing.T, text string) {
		prefix, hash, err := ParseKey(text)
		if err != nil {
			return
		}
		if hash != sha256.Sum256([]byte(text)) || !strings.HasPrefix(text, "elg_"+prefix+"_") || !validPrefix(prefix) {
			t.Fatalf("ParseKey(%q) accepted with prefix %q", text, prefix)
		}
	})
}
