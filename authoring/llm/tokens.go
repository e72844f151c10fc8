// Package llm is the language-model side of authoring: the exact token
// count of what a model is sent, the table of models and their budgets,
// the Model interface, and its OpenAI-compatible implementation reached
// with the caller's own provider Key. It is the only importer of the
// tokenizer and of the provider client, so every count the service reports
// and every byte it sends to a provider comes from one place.
package llm

import (
	"fmt"
	"strings"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer encodings a ModelInfo may name. o200k_base is what the current
// OpenAI models use; cl100k_base is GPT-4 and GPT-3.5's, and the closer
// estimate for many self-hosted models.
const (
	EncodingO200k  = "o200k_base"
	EncodingCl100k = "cl100k_base"
)

// Encodings lists the encodings NewCounterFor accepts.
func Encodings() []string { return []string{EncodingO200k, EncodingCl100k} }

// Counter counts tokens the way a model's tokenizer does (offline: the
// ranks are compiled in). Build one with NewCounter or NewCounterFor; it is
// safe for concurrent use.
type Counter struct {
	codec    tokenizer.Codec
	encoding string
}

// NewCounter loads the o200k_base tokenizer, the encoding of the default
// models.
func NewCounter() (*Counter, error) {
	return NewCounterFor(EncodingO200k)
}

// NewCounterFor loads the tokenizer of encoding (one of Encodings), so a
// prompt is counted the way the configured model will count it. An unknown
// encoding is an error rather than a silent fallback: a wrong count would
// either refuse prompts that fit or send prompts that do not.
func NewCounterFor(encoding string) (*Counter, error) {
	switch encoding {
	case EncodingO200k, EncodingCl100k:
	default:
		return nil, fmt.Errorf("load tokenizer: unknown encoding %q (known: %s)", encoding, strings.Join(Encodings(), ", "))
	}
	codec, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", encoding, err)
	}
	return &Counter{codec: codec, encoding: encoding}, nil
}

// Count is the number of tokens text encodes to.
func (c *Counter) Count(text string) (int, error) {
	n, err := c.codec.Count(text)
	if err != nil {
		return 0, fmt.Errorf("count tokens: %w", err)
	}
	return n, nil
}
