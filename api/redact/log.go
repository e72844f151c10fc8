package redact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/eligo/eligo/auth"
)

// MaxLogged bounds the caller-supplied text a log line may carry: a
// reference or a value quoted in an error. A caller who sends a 2 MB slug
// costs the log one line of ordinary length, not two megabytes.
const MaxLogged = 200

// ForLog is s as a log line may carry it: no credential (auth.RedactSecrets:
// a provider key is never logged, whatever it was sent as), valid UTF-8
// and at most MaxLogged bytes, a longer s cut at a character boundary
// with its full length noted.
func ForLog(s string) string {
	total := len(s)
	s = auth.RedactSecrets(s[:min(len(s), MaxLogged+auth.KeyLength)])
	return cutInput(strings.ToValidUTF8(s, "\uFFFD"), total)
}

// cutInput is the opening of a text of total bytes, s (valid UTF-8, at
// least the first MaxLogged bytes of the text, or all of it), as
// ForLog shows it: whole when total fits, else cut at a character
// boundary with total noted. A caller holding a long text passes only its
// opening, so the cost does not grow with the text.
func cutInput(s string, total int) string {
	if total <= MaxLogged && len(s) <= MaxLogged {
		return s
	}
	cut := min(MaxLogged, len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], total)
}
