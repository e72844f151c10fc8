package engine

// program is the flat form of a ruleset's expressions that evaluation walks.
type program struct{}
