package authoring

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/store"
)

// Reason codes of the limits on what a tenant may make the server hold or
// do (Config). Each refusal's message names the limit and its value and
// says what to do.
const (
	// ReasonSourceTextTooLarge: one file's extracted text is over
	// Config.MaxSourceText, or a PDF has more than source.MaxPages pages
	// (413).
	ReasonSourceTextTooLarge = "source_text_too_large"
	// ReasonUploadTextBudget: the files of one request extract to more
	// than Config.MaxUploadText bytes of text together (413).
	ReasonUploadTextBudget = "upload_text_budget_exceeded"
	// ReasonExtractionTimeout: the request's PDFs took longer than
	// Config.ExtractTimeout to extract (422).
	ReasonExtractionTimeout = "source_extraction_timeout"
	// ReasonProjectLimit: the tenant holds Config.MaxProjects projects
	// (422).
	ReasonProjectLimit = "tenant_project_limit"
	// ReasonGuidanceLimit: the project would hold more than
	// Config.MaxGuidance notes or Config.MaxGuidanceBytes of guidance
	// text (413).
	ReasonGuidanceLimit = "project_guidance_limit"
	// ReasonGenerationLimit: the tenant has Config.MaxActiveGenerations
	// generations queued or running (429).
	ReasonGenerationLimit = "tenant_generation_limit"
)

// GenerationRetryAfter is what a refusal for too many active generations
// asks the caller to wait: a generation usually takes one to two minutes,
// so a slot is likely free within half of one.
const GenerationRetryAfter = 30 * time.Second

// storeLimitMessage is the store's description of a limit error, without
// its sentinel's text, as the first sentence of a refusal.
func storeLimitMessage(err, sentinel error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, sentinel.Error()+": "); ok {
		msg = after
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// GenerationSlot refuses a generation the tenant has no room for (429
// tenant_generation_limit), before anything is planned: the tenant
// already has Config.MaxActiveGenerations queued or running. The store
// counts again when it records the start, under the tenant's lock.
func (s *Generation) GenerationSlot(ctx context.Context, tenantID string) error {
	n, err := s.store.ActiveGenerations(ctx, tenantID)
	if err != nil {
		return err
	}
	if n >= s.cfg.MaxActiveGenerations {
		return s.GenerationLimitRefusal(fmt.Errorf("%w: the tenant has %d generations queued or running and at most %d are allowed",
			store.ErrGenerationLimit, n, s.cfg.MaxActiveGenerations))
	}
	return nil
}

// GenerationLimitRefusal is the refusal of a start that store.StartGeneration
// (or GenerationSlot) found over the tenant's limit: err wraps
// store.ErrGenerationLimit. Any other error is returned as it is.
func (s *Generation) GenerationLimitRefusal(err error) error {
	if !errors.Is(err, store.ErrGenerationLimit) {
		return err
	}
	return &RefusedError{Kind: TooMany, Reason: ReasonGenerationLimit, RetryAfter: GenerationRetryAfter,
		Message: fmt.Sprintf("%s A tenant may have at most %d generations queued or running at once (limit max_active_generations); wait for one to end (GET /projects/{id}/status) and start again after %d seconds.",
			storeLimitMessage(err, store.ErrGenerationLimit), s.cfg.MaxActiveGenerations, int(GenerationRetryAfter.Seconds()))}
}

// tokenChunk is how much text countTokens gives the tokenizer at once. The
// tokenizer allocates some sixty times the text it counts (488 MB for 8
// MiB), so a source is counted a piece at a time: the transient cost is
// that of one piece, whatever the text's size.
const tokenChunk = 64 << 10

// forcedSplit is how far countTokens looks past tokenChunk for a clean
// boundary before it cuts a piece anyway.
const forcedSplit = 256 << 10

// countTokens returns the number of tokens text encodes to with counter,
// counting at most past limit (a negative limit counts it all): once the
// count passes limit it stops and reports over, so a text far over a
// budget costs no more than the budget to count.
//
// Pieces end before a space or newline that follows an ASCII letter or
// digit. The tokenizers split text into pre-tokens with a pattern that
// has no look-behind, and a letter or digit never shares a pre-token with
// the white space after it, so such a position is a pre-token boundary and
// the pieces' counts add up to the whole text's exactly. A text with no
// such position for forcedSplit bytes (not prose) is cut at a character
// boundary, where the sum may differ from the whole by a token.
func countTokens(counter *llm.Counter, text string, limit int) (n int, over bool, err error) {
	for len(text) > 0 {
		end := pieceEnd(text)
		c, err := counter.Count(text[:end])
		if err != nil {
			return n, false, err
		}
		n += c
		if limit >= 0 && n > limit {
			return n, true, nil
		}
		text = text[end:]
	}
	return n, false, nil
}

// pieceEnd is where countTokens cuts the next piece of text.
func pieceEnd(text string) int {
	if len(text) <= tokenChunk {
		return len(text)
	}
	for i := tokenChunk; i < len(text) && i < tokenChunk+forcedSplit; i++ {
		if (text[i] == ' ' || text[i] == '\n') && isASCIIAlnum(text[i-1]) {
			return i
		}
	}
	end := min(len(text), tokenChunk+forcedSplit)
	for end < len(text) && text[end]&0xC0 == 0x80 {
		end++ // not inside a character
	}
	return end
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
