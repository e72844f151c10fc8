package auth

import (
	"math"
	"strings"
)

// Secrets in caller text. A credential must never be echoed or logged,
// whatever member or header it came in (docs/authoring.md#generation-with-your-model):
// a provider key sent under a misspelt name, pasted into a text member or
// sent as a model's name is recognised by what it looks like, not only by
// where it was sent. RedactSecrets is that recognition; the API's echoes
// and log lines (api/redact) and the refusals that quote a caller's value
// go through it.

// Redacted replaces a secret in text that is echoed or logged.
const Redacted = "[redacted]"

// KeyLength is the length of an API key's text,
// elg_<8-character prefix>_<43 characters of base64url secret>: a reader
// that looks at only the opening of a long text reads this much further,
// so that a key (or any secret, see minSecretToken) starting just inside
// the opening is seen whole.
const KeyLength = len(keyMarker) + 1 + prefixLen + 1 + 43

// providerKeyPrefixes open the keys of the model providers a generation
// may be sent to (OpenAI and Anthropic sk-, Groq, Hugging Face, xAI,
// Google, Perplexity, NVIDIA): a token starting with one and at least
// minPrefixedToken long is a key whatever else it looks like.
var providerKeyPrefixes = []string{"sk-", "sk_", "gsk_", "hf_", "xai-", "AIza", "pplx-", "nvapi-"}

const (
	// minPrefixedToken is the shortest token with a provider's prefix
	// taken for a key; shorter ones ("sk-1") are ordinary words.
	minPrefixedToken = 20
	// minSecretToken is the shortest token taken for a secret by its
	// look alone. The service's own ids (prj_, src_, gen_, dec_ and 16
	// characters) are shorter, so they are never taken for one.
	minSecretToken = 24
	// minSecretEntropy is the least Shannon entropy, in bits per
	// character, of a token taken for a secret: 24 random base64
	// characters have about 4.2, words and identifiers much less.
	minSecretEntropy = 3.6
)

// isTokenByte reports whether c can be part of a token: the alphabets of
// base64 (standard and URL-safe) and of the provider keys.
func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_+/=", c) >= 0
}

// LooksLikeSecret reports whether token, a run of letters, digits and
// -_+/=, is a credential by its look: an Eligo API key, a token (or a
// part of one after a / = or +) opening with a provider's key prefix, or a long token of mixed letters and
// digits as random as a drawn key (upper and lower case, high
// entropy, the character class changing often, as in no word, identifier
// or address). A hexadecimal digest has no upper case and is not taken
// for one: a digest is no secret.
func LooksLikeSecret(token string) bool {
	if _, _, err := ParseKey(token); err == nil {
		return true
	}
	// A provider's key may follow a path or an assignment inside one
	// token (acme/sk-..., key=sk-...): each part is looked at.
	for part := range strings.FieldsFuncSeq(token, func(r rune) bool { return r == '/' || r == '=' || r == '+' }) {
		for _, p := range providerKeyPrefixes {
			if len(part) >= minPrefixedToken && strings.HasPrefix(part, p) {
				return true
			}
		}
	}
	if len(token) < minSecretToken {
		return false
	}
	var counts [256]int
	var upper, lower, changes int
	prev := -1
	for i := 0; i < len(token); i++ {
		c := token[i]
		counts[c]++
		class := -1
		switch {
		case 'A' <= c && c <= 'Z':
			upper, class = upper+1, 0
		case 'a' <= c && c <= 'z':
			lower, class = lower+1, 1
		case '0' <= c && c <= '9':
			class = 2
		}
		if class < 0 {
			continue // punctuation separates words; it says nothing of randomness
		}
		if prev >= 0 && class != prev {
			changes++
		}
		prev = class
	}
	// In random letters and digits the class changes at about three
	// characters in five; in words and identifiers at their boundaries.
	if upper == 0 || lower == 0 || changes < len(token)/3 {
		return false
	}
	entropy := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(token))
			entropy -= p * math.Log2(p)
		}
	}
	return entropy >= minSecretEntropy
}

// RedactSecrets returns s with every credential in it replaced: an Eligo
// API key by its public prefix and Redacted (elg_k3x9a0bq_[redacted], so
// its owner can tell which key leaked), any other token LooksLikeSecret
// accepts by Redacted. The rest of s is unchanged; s without a secret is
// returned as it is.
func RedactSecrets(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b, or nothing is when b is empty
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		end := i
		for end < len(s) && isTokenByte(s[end]) {
			end++
		}
		if token := s[i:end]; LooksLikeSecret(token) || strings.Contains(token, keyMarker+"_") {
			if replaced := redactToken(token); replaced != token {
				b.WriteString(s[done:i])
				b.WriteString(replaced)
				done = end
			}
		}
		i = end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// redactToken is token, a secret or a token holding an Eligo API key, as
// RedactSecrets shows it. A key is kept as its prefix; a key run into
// other token characters (elg_..._<secret>xyz, or words_elg_...) is found
// inside the token and replaced alike.
func redactToken(token string) string {
	if prefix, _, err := ParseKey(token); err == nil {
		return keyMarker + "_" + prefix + "_" + Redacted
	}
	if LooksLikeSecret(token) {
		return Redacted
	}
	marker := keyMarker + "_"
	var b strings.Builder
	for {
		at := strings.Index(token, marker)
		if at < 0 {
			b.WriteString(token)
			return b.String()
		}
		b.WriteString(token[:at])
		token = token[at:]
		if len(token) >= KeyLength {
			if prefix, _, err := ParseKey(token[:KeyLength]); err == nil {
				b.WriteString(marker + prefix + "_" + Redacted)
				token = token[KeyLength:]
				continue
			}
		}
		b.WriteString(marker)
		token = token[len(marker):]
	}
}
