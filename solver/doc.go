// Package solver answers questions about a compiled ruleset that one
// evaluation cannot: whether any answer set reaches an outcome, whether an
// unanswered field can look better than an answer, and which criteria stand
// between given answers and an expected outcome. It encodes the engine's
// compiled IR into SMT (encode.go) and asks Z3 through solver/z3.
//
// Every query runs in a z3.Context owned by one goroutine, is bounded by a
// timeout and honours its context.Context; a timeout is an error the caller
// sees. The package imports engine; engine never imports it.
package solver
