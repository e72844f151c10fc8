package authoring

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// ContractVersion is the acceptance contract version this service reads.
const ContractVersion = 1

// Contract is an acceptance contract beyond its test cases.
type Contract struct {
	// ContractVersion is 1.
	ContractVersion int `json:"contract_version"`
	// ExpectedReviewBindings maps each completion field to its answer
	// tokens' meaning for its review point: true completes the review
	// point, false rejects it, null leaves it pending. nil means the
	// contract declares nothing about review points; a pointer to an empty
	// map asserts there are none.
	ExpectedReviewBindings *map[string]map[string]*bool `json:"expected_review_bindings,omitempty"`
}

// TestsRequest is a write of a project's tests: a legacy write (Replace
// with TestCases) or a contract (Contract set, with TestCases).
type TestsRequest struct {
	// Replace replaces the project's tests; false appends to them.
	Replace bool
	// TestCases are the cases written.
	TestCases []engine.Case
	// Contract, when set, makes this a contract write: the cases and
	// contract replace the project's tests and contract together.
	Contract *Contract
}

// checkCases validates cases at the given body location: names present
// and unique, outcomes and statuses spelled as docs/folders.md#casesjson spells them.
func checkCases(cases []engine.Case, loc ...any) *InvalidError {
	var items []Invalid
	add := func(msg string, input any, at ...any) {
		items = append(items, Invalid{Loc: append(append([]any{"body"}, loc...), at...), Type: "value_error", Msg: "Value error, " + msg, Input: input})
	}
	seen := map[string]int{}
	for i, c := range cases {
		if strings.TrimSpace(c.Name) == "" {
			add("a test case needs a name", c.Name, i, "name")
		} else if first, dup := seen[c.Name]; dup {
			add(fmt.Sprintf("the name %q is already used by test case %d", c.Name, first), c.Name, i, "name")
		} else {
			seen[c.Name] = i
		}
		if _, ok := engine.ParseOutcome(c.ExpectedOutcome); !ok {
			add("expected_outcome must be eligible, not_eligible or undetermined", c.ExpectedOutcome, i, "expected_outcome")
		}
		if x := c.Expectations; x != nil {
			for _, id := range slices.Sorted(maps.Keys(x.Criteria)) {
				if !slices.Contains([]string{"satisfied", "not_satisfied", "pending"}, x.Criteria[id]) {
					add("a criterion's expected status must be satisfied, not_satisfied or pending", x.Criteria[id], i, "expectations", "criteria", id)
				}
			}
		}
	}
	if len(items) > 0 {
		return &InvalidError{Items: items}
	}
	return nil
}

// checkBindings validates a contract's expected_review_bindings in
// themselves (each value true, false or null is the JSON's business; here:
// names and tokens are non-empty).
func checkBindings(b map[string]map[string]*bool) *InvalidError {
	for _, field := range slices.Sorted(maps.Keys(b)) {
		if !strings.Contains(field, ".") {
			return invalid("a completion field is a field id, group.name", field, "expected_review_bindings", field)
		}
		if len(b[field]) == 0 {
			return invalid("a completion field maps at least one answer token", b[field], "expected_review_bindings", field)
		}
	}
	return nil
}

// SetTests writes a project's tests. A contract write replaces the tests
// and the contract together. A legacy write (no contract) never silently
// erases a contract: with a contract in force, a legacy replace or append
// is a 409 contract_in_force, and the contract stays.
func (s *Drafts) SetTests(ctx context.Context, tenantID, projectID string, req TestsRequest) (store.Project, error) {
	if len(req.TestCases) == 0 || len(req.TestCases) > MaxTests {
		return store.Project{}, invalid(fmt.Sprintf("a tests write takes 1 to %d test cases", MaxTests), len(req.TestCases), "test_cases")
	}
	if bad := checkCases(req.TestCases, "test_cases"); bad != nil {
		return store.Project{}, bad
	}
	if req.Contract != nil {
		if req.Contract.ContractVersion != ContractVersion {
			return store.Project{}, invalid("contract_version must be 1", req.Contract.ContractVersion, "contract_version")
		}
		if b := req.Contract.ExpectedReviewBindings; b != nil {
			if bad := checkBindings(*b); bad != nil {
				return store.Project{}, bad
			}
		}
	}
	return s.store.UpdateProject(ctx, tenantID, projectID, func(p *store.Project) error {
		cases := req.TestCases
		if req.Contract == nil {
			if p.Contract != nil {
				return &RefusedError{Kind: Conflict, Reason: ReasonContractInForce,
					Message: "The project's tests are governed by an acceptance contract; write a new contract (contract_version 1 with test_cases) to change them."}
			}
			if !req.Replace {
				var existing []engine.Case
				if err := json.Unmarshal(p.TestCases, &existing); err != nil {
					return fmt.Errorf("read stored tests: %w", err)
				}
				cases = append(existing, cases...)
				if len(cases) > MaxTests {
					return invalid(fmt.Sprintf("the project would hold %d test cases; at most %d are allowed", len(cases), MaxTests), len(cases), "test_cases")
				}
				if bad := checkCases(cases); bad != nil {
					bad.Items[0].Msg += " (after appending to the stored tests)"
					return bad
				}
			}
		}
		raw, err := json.Marshal(cases)
		if err != nil {
			return fmt.Errorf("encode tests: %w", err)
		}
		p.TestCases, p.Contract = raw, nil
		if req.Contract != nil {
			if p.Contract, err = json.Marshal(req.Contract); err != nil {
				return fmt.Errorf("encode contract: %w", err)
			}
		}
		return nil
	})
}

// Reason codes of the workspace's own refusals.
const (
	// ReasonContractInForce: a legacy tests write while a contract governs
	// the tests (409).
	ReasonContractInForce = "contract_in_force"
	// ReasonSourceCited: deleting a source a published ruleset cites (409).
	ReasonSourceCited = "source_cited"
	// ReasonSourceTooLarge: one file over the per-file limit (413).
	ReasonSourceTooLarge = "source_too_large"
	// ReasonSourceLimit: the project's source count or total size would
	// pass its limit.
	ReasonSourceLimit = "project_source_limit"
	// ReasonUnsupportedMediaType: not text, Markdown, HTML or PDF (422).
	ReasonUnsupportedMediaType = "unsupported_media_type"
	// ReasonSourceUnreadable: the bytes do not decode as their media type,
	// or hold no text (422).
	ReasonSourceUnreadable = "source_unreadable"
	// ReasonNoDraft: publishing or reviewing needs a draft (409).
	ReasonNoDraft = "no_draft"
	// ReasonDraftInvalid: the draft does not compile (422).
	ReasonDraftInvalid = "draft_does_not_compile"
	// ReasonTestsFailed: a test or contract check fails and force_unsafe
	// was not set (422).
	ReasonTestsFailed = "tests_failed"
	// ReasonReferenceUnresolved: a declared source cannot be bound to a
	// project source, or is unlicensed, private or mismatched (422).
	ReasonReferenceUnresolved = "source_reference_unresolved"
	// ReasonQuoteUnverified: a quote is not in its source's text (422).
	ReasonQuoteUnverified = "quote_unverified"
)
