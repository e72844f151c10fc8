package apitest

import (
	"bytes"
	"fmt"
	"strings"
)

// The hostile bodies the body limits of
// docs/limits.md#json-bodies-before-they-are-decoded answer, shared by the tests that each prove one
// refused and by the benchmark that measures them all.

// EmptyCasesBody is a create-project body whose test_cases are n empty
// objects.
func EmptyCasesBody(n int) []byte {
	return []byte(`{"name":"Flood","section_id":"flood","source_text":"","test_cases":[` +
		strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`)
}

// UndeclaredMembersBody is an explain-failure body of at least size bytes,
// valid but for members m000000, m000001... its schema does not declare.
func UndeclaredMembersBody(size int) []byte {
	var body bytes.Buffer
	body.WriteString(`{"field_values":{},"expected_outcome":"eligible"`)
	for i := 0; body.Len() < size; i++ {
		fmt.Fprintf(&body, `,"m%06d":0`, i)
	}
	body.WriteString(`}`)
	return body.Bytes()
}

// OutcomeTreeBody is a create-rulebook body of at least size bytes whose
// outcome_logic is one or node of as many leaves as fit.
func OutcomeTreeBody(size int) []byte {
	var body bytes.Buffer
	body.WriteString(`{"name":"Tree","slug":"acme/tree","ruleset_refs":[],"outcome_logic":{"op":"or","args":[{"section":"A"}`)
	for body.Len() < size {
		body.WriteString(`,{"section":"A"}`)
	}
	body.WriteString(`]}}`)
	return body.Bytes()
}
