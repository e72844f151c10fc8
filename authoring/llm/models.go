package llm

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ModelInfo is what the service must know about a model before calling
// it: how much prompt fits, and how to count it.
type ModelInfo struct {
	// Name is the provider's model name, sent as Request.Model.
	Name string
	// ContextWindow is the model's total window in tokens, prompt and
	// completion together.
	ContextWindow int
	// Reserved is the part of the window kept for the answer (and the few
	// tokens of chat framing per message that a plain count of the text
	// does not see); a request's MaxTokens should not exceed it.
	Reserved int
	// Encoding is the tokenizer encoding (EncodingO200k or EncodingCl100k)
	// for NewCounterFor.
	Encoding string
}

// Budget is the most prompt tokens a request to this model may carry: the
// window less what is reserved for the answer. A prompt counted above it is
// refused with token_budget_exceeded before any call is made.
func (m ModelInfo) Budget() int { return m.ContextWindow - m.Reserved }

// DefaultReserved is the answer reserve of the default models and of a
// configured model whose window is at least four times as large; a smaller
// window reserves a quarter of itself, so a small local model still has a
// prompt budget.
const DefaultReserved = 16_000

// MinContextWindow is the smallest window ParseModels accepts. No chat
// model worth generating rules with has less, and a smaller number is
// almost surely a mistake, such as a numeric model tag ("phi3:14") read as
// the window because the real window was left out.
const MinContextWindow = 1024

// reserveFor is the Reserved of a configured model with the given window.
func reserveFor(window int) int {
	return min(DefaultReserved, window/4)
}

// Models is the table of models a deployment offers, with one default. It
// is read-only once built, so one value may be shared by every request. The
// zero Models is empty: Lookup finds nothing and Default is the zero
// ModelInfo.
type Models struct {
	byName map[string]ModelInfo
	names  []string // in configured order; names[0] is the default
}

// DefaultModels is the table used when none is configured: current OpenAI
// chat models, all on o200k_base, gpt-4.1 first and so the default (long
// window, follows format instructions closely).
func DefaultModels() Models {
	var m Models
	for _, info := range []ModelInfo{
		{Name: "gpt-4.1", ContextWindow: 1_047_576},
		{Name: "gpt-4.1-mini", ContextWindow: 1_047_576},
		{Name: "gpt-4o", ContextWindow: 128_000},
		{Name: "gpt-4o-mini", ContextWindow: 128_000},
		{Name: "o4-mini", ContextWindow: 200_000},
	} {
		info.Reserved = DefaultReserved
		info.Encoding = EncodingO200k
		m.add(info)
	}
	return m
}

// ErrModelsSpec is wrapped by every ParseModels error, for callers that
// branch on a configuration failure.
var ErrModelsSpec = errors.New("invalid model table")

// ParseModels reads a model table from configuration: comma-separated
// entries name:context_window[:encoding], the first being the default, e.g.
//
//	gpt-4.1:1047576,llama3.1:8b:131072:cl100k_base
//
// The encoding defaults to o200k_base. A name may itself contain colons
// (Ollama's "llama3.1:8b"): the window is the last field, or the one before
// a trailing encoding. Reserved is DefaultReserved, or a quarter of a
// window smaller than four times that. Spaces around entries are ignored;
// an empty entry, a window that is not a whole number, an unknown
// encoding, a window under MinContextWindow or a repeated name is an error
// naming the entry.
func ParseModels(spec string) (Models, error) {
	var m Models
	if strings.TrimSpace(spec) == "" {
		return m, fmt.Errorf("%w: empty (want comma-separated name:context_window[:encoding])", ErrModelsSpec)
	}
	for i, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		info, err := parseModel(entry)
		if err != nil {
			return Models{}, fmt.Errorf("%w: entry %d %q: %v", ErrModelsSpec, i+1, entry, err)
		}
		if _, dup := m.byName[info.Name]; dup {
			return Models{}, fmt.Errorf("%w: entry %d: model %q listed twice", ErrModelsSpec, i+1, info.Name)
		}
		m.add(info)
	}
	return m, nil
}

// parseModel reads one name:context_window[:encoding] entry.
func parseModel(entry string) (ModelInfo, error) {
	if entry == "" {
		return ModelInfo{}, errors.New("empty entry (a stray comma?)")
	}
	fields := strings.Split(entry, ":")
	info := ModelInfo{Encoding: EncodingO200k}
	last := len(fields) - 1
	if last >= 2 && !isDigits(fields[last]) {
		info.Encoding = fields[last]
		last--
	}
	if last < 1 || !isDigits(fields[last]) {
		return ModelInfo{}, errors.New("want name:context_window[:encoding] with the window a whole number of tokens")
	}
	window, err := strconv.Atoi(fields[last])
	if err != nil || window < MinContextWindow {
		return ModelInfo{}, fmt.Errorf("context window %s is not a number of tokens of at least %d", fields[last], MinContextWindow)
	}
	if !slices.Contains(Encodings(), info.Encoding) {
		return ModelInfo{}, fmt.Errorf("unknown encoding %q (known: %s)", info.Encoding, strings.Join(Encodings(), ", "))
	}
	info.Name = strings.Join(fields[:last], ":")
	if strings.TrimSpace(info.Name) != info.Name || info.Name == "" {
		return ModelInfo{}, errors.New("model name is empty or has surrounding spaces")
	}
	info.ContextWindow = window
	info.Reserved = reserveFor(window)
	return info, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// add appends info to the table.
func (m *Models) add(info ModelInfo) {
	if m.byName == nil {
		m.byName = make(map[string]ModelInfo)
	}
	m.byName[info.Name] = info
	m.names = append(m.names, info.Name)
}

// Lookup finds a model by its exact name; ok is false for a model the
// deployment does not offer.
func (m Models) Lookup(name string) (ModelInfo, bool) {
	info, ok := m.byName[name]
	return info, ok
}

// Default is the model used when a request names none: the first entry.
func (m Models) Default() ModelInfo {
	if len(m.names) == 0 {
		return ModelInfo{}
	}
	return m.byName[m.names[0]]
}

// Names lists the model names in configured order, the default first; the
// slice is the caller's to keep.
func (m Models) Names() []string { return slices.Clone(m.names) }

// String writes the table back in ParseModels' form, so a deployment can
// log the table it runs with and ParseModels(m.String()) gives it back
// (Reserved is not written: ParseModels derives it from the window, which
// gives the default models' reserve back too).
func (m Models) String() string {
	entries := make([]string, len(m.names))
	for i, name := range m.names {
		info := m.byName[name]
		entries[i] = fmt.Sprintf("%s:%d:%s", info.Name, info.ContextWindow, info.Encoding)
	}
	return strings.Join(entries, ",")
}
