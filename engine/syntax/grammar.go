package syntax

import _ "embed"

//go:embed GRAMMAR.md
var grammar string

// Grammar is the rules language's reference (GRAMMAR.md) as shipped with
// this engine: what a model is given to write rules from, so a prompt
// always describes the language the engine in the same binary compiles.
func Grammar() string { return grammar }
