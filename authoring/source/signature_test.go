package source

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

func TestSignResemblance(t *testing.T) {
	t.Parallel()
	fmla := casebankSource(t, "us-fmla-employee")
	if r := Sign(fmla).Resemblance(Sign(fmla)); r != 1 {
		t.Errorf("identical texts: resemblance %v, want 1", r)
	}

	// The same statute with one sentence changed is a near-duplicate.
	const sentence = "The 12 months an employee must have been employed by the employer need not be consecutive months, provided"
	if !strings.Contains(fmla, sentence) {
		t.Fatal("casebank text changed: sentence to edit not found")
	}
	edited := strings.Replace(fmla, sentence, "The twelve months of employment may be spread over any period, provided that", 1)
	if r := Sign(fmla).Resemblance(Sign(edited)); r < NearDuplicateThreshold || r == 1 {
		t.Errorf("one sentence changed: resemblance %v, want in [%v, 1)", r, NearDuplicateThreshold)
	}

	// Re-spaced, re-cased or re-punctuated, a text is the same text.
	reformatted := strings.ToUpper(strings.Join(strings.Fields(strings.ReplaceAll(fmla, ",", " ; ")), "\n"))
	if r := Sign(fmla).Resemblance(Sign(reformatted)); r != 1 {
		t.Errorf("reformatted: resemblance %v, want 1", r)
	}

	// Different statutes resemble each other little.
	names := []string{"us-fmla-employee", "uk-child-benefit", "eu-blue-card-de", "ca-voter-registration",
		"ssa-full-retirement-age", "us-independent-student", "uk-state-pension-age"}
	for i, a := range names {
		for _, b := range names[i+1:] {
			if r := Sign(casebankSource(t, a)).Resemblance(Sign(casebankSource(t, b))); r >= 0.3 {
				t.Errorf("%s and %s: resemblance %v, want < 0.3", a, b, r)
			}
		}
	}
}

func TestSignEmptyAndShort(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "  \n\t", "— § … ;"} {
		s := Sign(text)
		if s != (Signature{}) {
			t.Errorf("Sign(%q) is not the empty signature", text)
		}
		if r := s.Resemblance(s); r != 0 {
			t.Errorf("Sign(%q) resembles itself: %v", text, r)
		}
		if r := s.Resemblance(Sign("eligible employee")); r != 0 {
			t.Errorf("Sign(%q) resembles a text: %v", text, r)
		}
	}
	short := Sign("Eligible employee.")
	if r := short.Resemblance(Sign("eligible, EMPLOYEE")); r != 1 {
		t.Errorf("a short text: resemblance to itself %v, want 1", r)
	}
	if r := short.Resemblance(Sign("eligible employer")); r != 0 {
		t.Errorf("different short texts: resemblance %v, want 0", r)
	}
}

// TestSignIsStable pins Sign's definition: signatures are stored, so a
// change here silently breaks near-duplicate detection against every
// stored source.
func TestSignIsStable(t *testing.T) {
	t.Parallel()
	// Slot 0 of a two-word text, computed from the documented definition
	// with the standard library's FNV-1a.
	h := fnv.New64a()
	h.Write([]byte("eligible employee"))
	seed := mix(1 * 0x9e3779b97f4a7c15)
	if got, want := Sign("Eligible employee")[0], mix(h.Sum64()^seed); got != want || got != 0x9682c7bde00635d6 {
		t.Errorf("slot 0 = %#x, want %#x and 0x9682c7bde00635d6", got, want)
	}

	s := Sign("The term “eligible employee” means an employee who has been employed for at least 12 months.")
	sum := sha256.Sum256(s.Bytes())
	if got := hex.EncodeToString(sum[:]); got != "c8bc771be91aafe6d2d97eabcd7e7af2dfbdc7a255e51c8ee2d2076f63c7f6cd" {
		t.Errorf("signature digest %s changed", got)
	}
	if s[0] != 0x103a3cc448f7f72 || s[63] != 0x1bcccf651894b201 {
		t.Errorf("slots 0 and 63 = %#x, %#x changed", s[0], s[63])
	}
}

func TestSignatureBytes(t *testing.T) {
	t.Parallel()
	s := Sign(casebankSource(t, "uk-child-benefit"))
	b := s.Bytes()
	if len(b) != SignatureSize || SignatureSize != 512 {
		t.Fatalf("Bytes: %d bytes, SignatureSize %d; want 512", len(b), SignatureSize)
	}
	if b[0] != byte(s[0]>>56) || b[7] != byte(s[0]) {
		t.Errorf("Bytes is not big-endian: % x for %#x", b[:8], s[0])
	}
	got, err := ParseSignature(b)
	if err != nil || got != s {
		t.Fatalf("ParseSignature(Bytes()) = %v, %v", got, err)
	}
	for _, n := range []int{0, 511, 513} {
		if _, err := ParseSignature(make([]byte, n)); err == nil {
			t.Errorf("ParseSignature of %d bytes: no error", n)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	text := strings.Repeat(casebankSource(b, "uk-child-benefit"), 200) // about 1 MB
	for b.Loop() {
		Sign(text)
	}
}

// referenceSign is Sign as first written, over the whole word list; the
// streaming Sign must agree with it on every text, or stored signatures
// would stop matching.
func referenceSign(text string) Signature {
	var seeds [len(Signature{})]uint64
	for i := range seeds {
		seeds[i] = mix(uint64(i+1) * 0x9e3779b97f4a7c15)
	}
	var sig Signature
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	n := len(words) - shingleWords + 1
	if len(words) > 0 && n < 1 {
		n = 1
	}
	for s := 0; s < n; s++ {
		base := uint64(fnvOffset)
		for j, w := range words[s:min(s+shingleWords, len(words))] {
			if j > 0 {
				base = fnv1a(base, " ")
			}
			base = fnv1a(base, w)
		}
		for i, seed := range seeds {
			v := mix(base ^ seed)
			if v == 0 {
				v = 1
			}
			sig[i] = min(sig[i], v)
		}
	}
	if n < 1 {
		return Signature{}
	}
	return sig
}

func TestSignMatchesReference(t *testing.T) {
	t.Parallel()
	texts := []string{"", "   ", "One", "one two three four", "one two three four five", "one two three four five six",
		"İstanbul ÇAĞRI ǅemal Σίσυφος ΣΊΣΥΦΟΣ straße ＡＢＣ ⅠⅡⅢ ⓐⒷ 12 345 \xff bad \xe2\x80 bytes",
		casebankSource(t, "us-fmla-employee"), casebankSource(t, "uk-child-benefit")}
	pieces := []string{"word", "Word", " ", ", ", "İ", "ǅ", "Σ", "ς", "7", "\u0307", "—", "\xff", "ß", "Ⅻ", "\n"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		if got, want := Sign(text), referenceSign(text); got != want {
			t.Fatalf("Sign(%q) differs from the reference", text)
		}
	}
}
