package decide

import (
	_ "embed"
	"strconv"
	"strings"

	"github.com/eligo/eligo/metering"
)

// decideDescription is the operation's reference text (description.md,
// Markdown as the OpenAPI description is): long prose is easier to read and
// review as a document than as a Go string. The file ends with a newline,
// which the description does not.
//
//go:embed description.md
var decideDescription string

// description is the operation's reference text, with the anonymous
// price worked out from the flag table.
func description() string {
	return strings.TrimSuffix(decideDescription, "\n") + "\n\nAnonymous cost: " + strconv.Itoa(metering.PlainDecideCost) + " unit plain, plus " +
		strconv.Itoa(metering.FlagSurcharge) + " for each of " + costlyFlagList() + " set (trace plus explanation costs 11); a key counts one unit per call."
}
