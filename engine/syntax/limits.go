package syntax

import "fmt"

// The caps on what one ruleset text may hold. A text reaches the engine
// from anyone holding an API key (a draft, a publish body) or from a file
// on the command line, and every later step (checking, the digest, the
// evaluator's program, the solver's encoding, review and mutation) costs
// at least as much as the text is large, some steps far more. The parser
// enforces the caps as it reads, before any of that work, and refuses a
// text over one with a compile error that names the limit and its value.
//
// Each cap is sized from the casebank (the largest of its 33 rulesets is
// given in brackets) with ten times that or more as room, rounded up to a
// figure a reader can remember; TestLimitsFitCasebank keeps it so. They are
// constants, not options: a ruleset that compiles in one place compiles in
// every other, and the cost bound the service documents holds everywhere.
const (
	// MaxRulesBytes caps the size of one ruleset text, 1 MiB [30,904
	// bytes]. It is also the draft body the API accepts, so a draft the
	// API stores is never refused for its size alone. Every other cost
	// grows with the text, so this is the first check, before lexing.
	MaxRulesBytes = 1 << 20
	// MaxSources caps the source declarations of one ruleset, 200 [14]:
	// full SNAP with members cites the regulation and three state manuals.
	// Each is bound to a project source and verified at publish.
	MaxSources = 200
	// MaxFields caps the field declarations of one ruleset, 500 [13]: a
	// field is a question an applicant may be asked and an input of the
	// solver's encoding.
	MaxFields = 500
	// MaxLists caps the list declarations of one ruleset, 8: a household
	// and its children, or an employer's several jobs, need one or two.
	MaxLists = 8
	// MaxListMembers caps the most members a list may declare (its `up
	// to`, at least 2), 64: SNAP's largest household tables stop at 8 and add a
	// figure per member beyond. Each member multiplies the list's fields
	// in the evaluator's slots and the solver's encoding, which unroll
	// every aggregate to the bound.
	MaxListMembers = 64
	// MaxEnumValues caps the listed values of one enum field, 1,000 [10]:
	// room for a list of every country, and a bound on the scan that
	// resolves each enum string of a comparison.
	MaxEnumValues = 1_000
	// MaxValues caps the named value declarations of one ruleset, 500:
	// full SNAP eligibility, every deduction of 7 CFR 273.9(d) named,
	// needs about 40. Each value is a defined term of the solver's
	// encoding and a line of every explanation that rests on it.
	MaxValues = 500
	// MaxTableKeys caps the keys of one table, 8: SNAP's limits need two
	// (region and household size). A lookup holds its keys' values on the
	// stack, so evaluation stays free of allocation.
	MaxTableKeys = 8
	// MaxTableRows caps the rows of one table, all its periods together,
	// 2,000: SNAP's income limits over five fiscal years, four regions
	// and nine size bands are 180.
	MaxTableRows = 2_000
	// MaxGroups caps the groups of one ruleset, 100 [6].
	MaxGroups = 100
	// MaxCriteria caps the criteria of one ruleset, all groups together,
	// 1,000 [56]. Review and mutation testing cost grows with each
	// criterion; a statute larger than this is several rulesets composed
	// in a rulebook.
	MaxCriteria = 1_000
	// MaxCitations caps the cite lines of one ruleset, 2,000 [120]: two per
	// criterion at the cap. Each quote is searched for in its source's
	// text at review and publish.
	MaxCitations = 2_000
	// MaxExprNodes caps the expression nodes of one ruleset, criteria and
	// outcome together, 20,000 [643]: every value, field reference,
	// operator and call is one node. It bounds the checker, the compiled
	// program and the solver's encoding, which each take one step or term
	// per node.
	MaxExprNodes = 20_000
	// MaxExprDepth caps how deeply one expression nests, 200 levels [6].
	// Each parenthesis, call, not and unary minus is a level, and so is
	// each operator of a chain of +, -, * or ??, since `2 * 2 * 2 * a.x`
	// is a product nested in a product; and/or chains are flat (see
	// MaxChainOperands). The cap keeps the parser, the
	// printer and every recursive walk of the compiled expression within a
	// small stack, and the compiled JSON far inside the 10,000 levels
	// encoding/json and RFC 8785 canonicalisation accept.
	MaxExprDepth = 200
	// MaxChainOperands caps the operands of one chain of `and` or of `or`,
	// 256 [16]. The compiled form of such a chain is one n-ary node.
	MaxChainOperands = 256
	// MaxCallArgs caps the arguments of one call, 64 [2]. Only min and
	// max take more than two, and the solver encodes min and max of n
	// arguments with n×n comparisons.
	MaxCallArgs = 64
	// MaxListValues caps the values after one `in` or `not in`, 1,000 [4]:
	// room for a list of every country.
	MaxListValues = 1_000
)

// overLimit is the message of a text over one of the caps above: what was
// found, the limit with its value, and what to do. limit names what is
// counted, e.g. "criteria per ruleset".
func overLimit(found string, value int, limit, advice string) string {
	return fmt.Sprintf("%s, over the limit of %d %s: %s", found, value, limit, advice)
}

// splitAdvice is what to do with a text too large as a whole.
const splitAdvice = "split the rules into several rulesets and compose them in a rulebook"
