// Package llm is the language-model side of authoring: the exact token
// count of what a model is sent, and (with generation) the Model interface
// and its OpenAI-compatible implementation. It is the only importer of the
// tokenizer, so every count the service reports comes from one place.
package llm

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer"
)

// Counter counts tokens the way the generation model's tokenizer does
// (o200k_base, offline: the ranks are compiled in). Build one with
// NewCounter; it is safe for concurrent use.
type Counter struct {
	codec tokenizer.Codec
}

// NewCounter loads the o200k_base tokenizer.
func NewCounter() (*Counter, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	return &Counter{codec: codec}, nil
}

// Count is the number of tokens text encodes to.
func (c *Counter) Count(text string) (int, error) {
	n, err := c.codec.Count(text)
	if err != nil {
		return 0, fmt.Errorf("count tokens: %w", err)
	}
	return n, nil
}
