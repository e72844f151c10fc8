package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// InquiryContext is the /decide request's inquiry_context: what the
// applicant has told the service about the questions themselves, as
// opposed to the answers. It steers which question is asked next and never
// the outcome.
//
// On the wire:
//
//		{"declined_fields": ["income.net_monthly"],
//		 "preferred_section": "snap_income",
//		 "preferred_groups": ["gross_exempt"]}
//
//	  - declined_fields: fields the applicant will not answer. The path never
//	    asks for them; a way to eligible that needs one is not a way.
//	  - preferred_section: a section id. Among equally cheap ways, the one
//	    asking more fields of that section wins.
//	  - preferred_groups: ids of groups, or of single alternatives (criteria)
//	    of an `any` group, that the applicant wants to pursue. Among equally
//	    cheap ways, the one asking more fields that a preferred group's
//	    criteria (or a preferred criterion) read wins.
//
// Ids the ruleset does not declare are ignored, so that one context can be
// sent to every section of a rulebook.
type InquiryContext struct {
	// DeclinedFields are the field ids the applicant will not answer.
	DeclinedFields []string `json:"declined_fields,omitempty"`
	// PreferredSection is the section id that breaks ties between equally
	// cheap ways; "" for none.
	PreferredSection string `json:"preferred_section,omitempty"`
	// PreferredGroups are the group or criterion ids that break ties
	// after PreferredSection.
	PreferredGroups []string `json:"preferred_groups,omitempty"`
}

// NormalizeInquiryContext returns the canonical form of ic: ids trimmed of
// white space, empty ones dropped, lists sorted and without duplicates, and
// nil (never empty) lists. Two contexts that steer the planner identically
// apart from the spelling of their lists normalise to the same value, so the
// API can use Key of the result in its decision cache identity.
func NormalizeInquiryContext(ic InquiryContext) InquiryContext {
	return InquiryContext{
		DeclinedFields:   normalizeIDs(ic.DeclinedFields),
		PreferredSection: strings.TrimSpace(ic.PreferredSection),
		PreferredGroups:  normalizeIDs(ic.PreferredGroups),
	}
}

// IsZero reports whether ic steers nothing.
func (ic InquiryContext) IsZero() bool {
	return len(ic.DeclinedFields) == 0 && ic.PreferredSection == "" && len(ic.PreferredGroups) == 0
}

// Key is the canonical JSON of a normalised context, for cache keys: equal
// contexts give equal keys and different ones different keys. The zero
// context's key is the empty string.
func (ic InquiryContext) Key() string {
	if ic.IsZero() {
		return ""
	}
	b, err := json.Marshal(ic)
	if err != nil { // a struct of strings always marshals
		panic(fmt.Sprintf("solver: marshal inquiry context: %v", err))
	}
	return string(b)
}

func normalizeIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
