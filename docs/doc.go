// Package docs is the project's manual (the Markdown files beside this
// one, which README.md links into) and the tests that keep it true: every
// relative link and anchor in README.md and docs/*.md resolves
// (links_test.go), and every shell block of the documents that promise to
// run (README.md, the tutorial and the guides runDocuments lists) runs
// against a real `eligo serve` on a real database, its output compared
// with what the text says it is (doctest_test.go). The conventions are in development.md, "Docs that
// run". The package holds no code; a Go package is where `go test ./...`,
// and so `make test`, finds these checks.
package docs
