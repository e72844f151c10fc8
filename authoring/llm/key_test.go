package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// sentinel is a key no output may ever contain.
const sentinel = "sk-proj-SENTINEL-7f3a9c2e41b8d6"

// Every printed, logged and encoded form of a Key is "[redacted]", also
// when the Key sits inside a struct, exported field or not; Reveal is the
// only way back to the secret.
func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	k := NewKey("  " + sentinel + "\n")
	if k.Reveal() != sentinel || k.Empty() {
		t.Fatalf("Reveal() = %q, Empty() = %v", k.Reveal(), k.Empty())
	}
	type holder struct {
		K Key
		k Key
		P *Key
	}
	h := holder{K: k, k: k, P: &k}
	j, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	text, err := k.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logged, nil))
	logger.Info("call", "key", k, "holder", h, slog.Any("ptr", &k))
	slog.New(slog.NewTextHandler(&logged, nil)).Info("call", "key", k)

	forms := map[string]string{
		"String":      k.String(),
		"GoString":    k.GoString(),
		"%v":          fmt.Sprintf("%v", k),
		"%+v":         fmt.Sprintf("%+v", k),
		"%#v":         fmt.Sprintf("%#v", k),
		"%s":          fmt.Sprintf("%s", k),
		"%q":          fmt.Sprintf("%q", k),
		"%x":          fmt.Sprintf("%x", k),
		"%d":          fmt.Sprintf("%d", k),
		"%10.3s":      fmt.Sprintf("%10.3s", k),
		"Sprint":      fmt.Sprint(k),
		"Sprintln":    fmt.Sprintln(k, &k),
		"struct %+v":  fmt.Sprintf("%+v", struct{ K Key }{k}),
		"struct %#v":  fmt.Sprintf("%#v", struct{ K Key }{k}),
		"holder %+v":  fmt.Sprintf("%+v", h),
		"holder %#v":  fmt.Sprintf("%#v", h),
		"slice %v":    fmt.Sprintf("%v", []Key{k}),
		"map %v":      fmt.Sprintf("%v", map[string]Key{"k": k}),
		"LogValue":    k.LogValue().String(),
		"MarshalJSON": string(j),
		"MarshalText": string(text),
		"slog":        logged.String(),
	}
	for name, got := range forms {
		if strings.Contains(got, sentinel) || strings.Contains(got, "SENTINEL") {
			t.Errorf("%s leaks the key: %s", name, got)
		}
	}
	if want := `{"K":"[redacted]","P":"[redacted]"}`; string(j) != want {
		t.Errorf("json = %s, want %s", j, want)
	}
	if got := fmt.Sprintf("%+v", struct{ K Key }{k}); got != "{K:[redacted]}" {
		t.Errorf("struct %%+v = %s", got)
	}
	if got := fmt.Sprintf("%q", k); got != `"[redacted]"` {
		t.Errorf("%%q = %s", got)
	}
	if !strings.Contains(logged.String(), `"key":"[redacted]"`) {
		t.Errorf("slog JSON output has no redacted key: %s", logged.String())
	}
}

// A Key is never decoded: not from JSON, not from text, not inside a
// struct, so a request body or a stored row cannot smuggle one in.
func TestKeyRefusesDecoding(t *testing.T) {
	t.Parallel()
	var k Key
	if err := json.Unmarshal([]byte(`"`+sentinel+`"`), &k); !errors.Is(err, ErrKeyNotDecodable) {
		t.Errorf("json.Unmarshal = %v, want ErrKeyNotDecodable", err)
	}
	var s struct{ K Key }
	if err := json.Unmarshal([]byte(`{"K":"`+sentinel+`"}`), &s); !errors.Is(err, ErrKeyNotDecodable) {
		t.Errorf("json.Unmarshal into struct = %v, want ErrKeyNotDecodable", err)
	}
	if err := k.UnmarshalText([]byte(sentinel)); !errors.Is(err, ErrKeyNotDecodable) {
		t.Errorf("UnmarshalText = %v", err)
	}
	if !k.Empty() || !s.K.Empty() {
		t.Error("a refused decode left a secret behind")
	}
}

// The zero Key and a blank secret are empty and reveal nothing.
func TestKeyEmpty(t *testing.T) {
	t.Parallel()
	for _, k := range []Key{{}, NewKey(""), NewKey(" \t\n")} {
		if !k.Empty() || k.Reveal() != "" {
			t.Errorf("%#v: Empty() = %v, Reveal() = %q", k, k.Empty(), k.Reveal())
		}
	}
}
