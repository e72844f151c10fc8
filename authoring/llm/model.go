package llm

import "context"

// Message roles. A conversation is usually one system message (the
// instructions), then user and assistant messages in turn: a repair round
// replays the model's earlier answer as an assistant message and the test
// failures as a user message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a chat: who speaks (RoleSystem, RoleUser or
// RoleAssistant) and the plain text said.
type Message struct {
	Role    string
	Content string
}

// Request is one chat completion to make.
type Request struct {
	// Model is the provider's model name, e.g. "gpt-4.1"; required. It is
	// sent as given: Models holds the budgets, not a list of allowed names.
	Model string
	// Messages is the conversation so far; at least one.
	Messages []Message
	// MaxTokens bounds the completion (max_completion_tokens on the wire).
	// Zero leaves it to the provider; negative is an error. Keep it within
	// the model's ModelInfo.Reserved so prompt and answer fit the window.
	MaxTokens int
}

// Response is the model's answer and what the provider says it cost.
type Response struct {
	// Content is the text of the first choice, never empty (an empty
	// answer is a ReasonResponseInvalid error instead).
	Content string
	// PromptTokens and CompletionTokens are the provider's usage figures;
	// zero when a provider (some local servers) does not report usage.
	PromptTokens, CompletionTokens int
	// FinishReason is why the model stopped, as the provider says it:
	// "stop" for a complete answer, "length" when MaxTokens cut it short
	// (the answer is then likely incomplete DSL).
	FinishReason string
}

// Model is a chat model reached with the caller's key. The key is passed
// per call, never held by the Model, so one Model serves every team and a
// key lives exactly as long as the request that brought it.
//
// Complete returns ErrNoKey for an empty key, an error wrapping
// ErrInvalidRequest for a malformed Request, and a *ProviderError for every
// failure of the call itself. It makes a single attempt; retrying a
// Retryable error is up to the caller.
type Model interface {
	Complete(ctx context.Context, key Key, req Request) (Response, error)
}
