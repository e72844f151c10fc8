package projects

import (
	"fmt"
	"net/http"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/authoring"
)

// The refusals of the limits on what one tenant may make the server hold
// or do (authoring.Config), declared once for the operations they apply
// to; each message names the limit and its value.

// textRefusals are an upload's refusals for the text its files extract
// to.
func textRefusals(lim authoring.Config) []api.Refusal {
	return []api.Refusal{
		{Status: http.StatusRequestEntityTooLarge, ReasonCode: authoring.ReasonSourceTextTooLarge, Meaning: fmt.Sprintf(
			"one file's extracted text is over %d bytes (a small PDF can extract to far more text than its size), or a PDF has more than 50000 pages; extraction stopped there.", lim.MaxSourceText)},
		{Status: http.StatusRequestEntityTooLarge, ReasonCode: authoring.ReasonUploadTextBudget, Meaning: fmt.Sprintf(
			"the request's files together extract to more than %d bytes of text; send them in separate requests.", lim.MaxUploadText)},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonExtractionTimeout, Meaning: fmt.Sprintf(
			"the request's PDFs took more than %s to extract, together.", lim.ExtractTimeout)},
	}
}

// The editor's checks and completions (POST .../draft/check and
// .../draft/complete, docs/limits.md#ruleset-text-engine) are sent as an
// author types, a hundred an hour and more: counted against the tenant's
// daily projects budget they would spend it on keystrokes and leave no
// room to save. They are unmetered instead, and bounded per tenant by
// this rate: EditorChecksBurst at once, refilled over EditorChecksWindow
// (one a second), far above what typing sends (one per 400 ms pause at
// most) and far below what would tie up a core (a check of the largest
// draft the limits allow takes about 60 ms).
const (
	EditorChecksBurst  = 60
	EditorChecksWindow = time.Minute
)

// editorChecksRefusal is the refusal of a check or completion over the
// rate.
var editorChecksRefusal = api.Refusal{Status: http.StatusTooManyRequests, ReasonCode: api.ReasonEditorChecksLimited, Meaning: fmt.Sprintf(
	"the tenant's checks and completions came faster than %d a minute (%d at once); they are not counted against the projects budget, and this bounds them instead. `Retry-After` says when to send the next.",
	EditorChecksBurst, EditorChecksBurst)}

// projectLimitRefusal is project creation's refusal at the tenant's cap.
func projectLimitRefusal(lim authoring.Config) api.Refusal {
	return api.Refusal{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonProjectLimit, Meaning: fmt.Sprintf(
		"the tenant holds %d projects, the most it may; reuse one.", lim.MaxProjects)}
}

// guidanceLimitRefusal is adding guidance's refusal at the project's caps.
func guidanceLimitRefusal(lim authoring.Config) api.Refusal {
	return api.Refusal{Status: http.StatusRequestEntityTooLarge, ReasonCode: authoring.ReasonGuidanceLimit, Meaning: fmt.Sprintf(
		"the project would hold more than %d guidance notes or %d bytes of guidance text.", lim.MaxGuidance, lim.MaxGuidanceBytes)}
}

// generationLimitRefusal is a generation start's refusal at the tenant's
// cap of generations under way.
func generationLimitRefusal(lim authoring.Config) api.Refusal {
	return api.Refusal{Status: http.StatusTooManyRequests, ReasonCode: authoring.ReasonGenerationLimit, Meaning: fmt.Sprintf(
		"the tenant already has %d generations queued or running, the most it may (the `generate` class is metered, not limited, so this is what bounds repeated starts); `Retry-After: %d`.",
		lim.MaxActiveGenerations, int(authoring.GenerationRetryAfter.Seconds()))}
}
