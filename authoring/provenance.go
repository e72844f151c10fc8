package authoring

import (
	"fmt"
	"math"
	"strings"

	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// Target kinds of a reference: a v1 reference to the source's public URL,
// or a v2 reference to the uploaded file itself.
const (
	TargetURL      = "url"
	TargetArtefact = "artefact"
)

// SourceTarget says which project source a source declared in the draft is
// verified against, and how the published reference points at it.
type SourceTarget struct {
	// SourceID is the project source.
	SourceID string `json:"source_id"`
	// TargetKind is url (v1: the source's public url) or artefact (v2:
	// the uploaded file; the ruleset can then never be public).
	TargetKind string `json:"target_kind" enum:"url,artefact"`
}

// binding is a declared source bound to a project source.
type binding struct {
	decl    engine.Source
	src     *store.ProjectSource
	kind    string
	licence string
	// locator is the published url (v1) or artefact locator (v2).
	locator string
}

// ArtefactLocator is the artefact (v2) locator of a project source: the
// path, under the API root, of its retained bytes.
func ArtefactLocator(projectID, sourceID string) string {
	return "/projects/" + projectID + "/sources/" + sourceID + "/raw"
}

// artefactSourceID reads the source id out of an artefact locator as a
// draft may write it: the full locator or the bare source id.
func artefactSourceID(projectID, loc string) string {
	if strings.HasPrefix(loc, "src_") {
		return loc
	}
	if rest, ok := strings.CutPrefix(loc, "/projects/"+projectID+"/sources/"); ok {
		return strings.TrimSuffix(rest, "/raw")
	}
	return ""
}

// bind resolves every source the rules declare to a project source, as
// targets say or, without a target, by the declaration itself (an
// artefact locator naming a project source, or a url some project source
// was uploaded with). problems are what makes a reference unresolvable,
// private, unlicensed or mismatched, one sentence each.
func bind(projectID string, rules *engine.Ruleset, sources []store.ProjectSource, targets map[string]SourceTarget) (bindings []binding, problems []string) {
	byID := map[string]*store.ProjectSource{}
	for i := range sources {
		byID[sources[i].ID] = &sources[i]
	}
	for id := range targets {
		if !declares(rules, id) {
			problems = append(problems, fmt.Sprintf("source_targets names %s, which the draft does not declare", id))
		}
	}
	for _, d := range rules.Sources {
		b := binding{decl: d}
		fail := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("source %s: ", d.ID)+fmt.Sprintf(format, args...))
		}
		if t, ok := targets[d.ID]; ok {
			b.src, b.kind = byID[t.SourceID], t.TargetKind
			if b.src == nil {
				fail("source_targets names %s, which is not a source of this project", t.SourceID)
				continue
			}
		} else if d.Artefact != "" {
			b.src, b.kind = byID[artefactSourceID(projectID, d.Artefact)], TargetArtefact
			if b.src == nil {
				fail("the artefact %q is not a source of this project; name one as src_... or in source_targets", d.Artefact)
				continue
			}
		} else {
			b.src, b.kind = sourceWithURL(sources, d.URL), TargetURL
			if b.src == nil {
				fail("no source of this project was uploaded with the url %q; upload it with that url, or bind it in source_targets", d.URL)
				continue
			}
		}
		switch b.kind {
		case TargetURL:
			b.locator = b.src.URL
			if b.src.URL == "" {
				fail("%s has no url, so it cannot be cited by url; upload it with its public url or cite it as an artefact", sourceWords(b.src))
				continue
			}
			if why := privateURL(b.src.URL); why != "" {
				fail("the url of %s is not public (%s); cite it as an artefact", sourceWords(b.src), why)
				continue
			}
			if d.URL != "" && d.URL != b.src.URL {
				fail("the draft declares the url %q but %s was uploaded from %q", d.URL, sourceWords(b.src), b.src.URL)
				continue
			}
		case TargetArtefact:
			b.locator = ArtefactLocator(projectID, b.src.ID)
		}
		b.licence = d.Licence
		switch {
		case b.src.Licence != "" && d.Licence != "" && b.src.Licence != d.Licence:
			fail("the draft declares the licence %q but %s was uploaded under %q", d.Licence, sourceWords(b.src), b.src.Licence)
			continue
		case b.licence == "":
			b.licence = b.src.Licence
		}
		if strings.TrimSpace(b.licence) == "" {
			fail("no licence: declare one, or upload the source with its licence")
			continue
		}
		bindings = append(bindings, b)
	}
	return bindings, problems
}

func declares(rules *engine.Ruleset, id string) bool {
	for _, s := range rules.Sources {
		if s.ID == id {
			return true
		}
	}
	return false
}

// sourceWords names an uploaded source in a reference problem as the team
// knows it: its title and file name, or the file name alone. The message
// already names the source as the rules cite it ("source fpg_2025: ..."),
// so the project's own source id (src_...) would only add noise.
func sourceWords(src *store.ProjectSource) string {
	if src.Title == "" {
		return src.Filename
	}
	return fmt.Sprintf("%q (%s)", src.Title, src.Filename)
}

// sourceWithURL is the project's source uploaded from u, active ones
// first.
func sourceWithURL(sources []store.ProjectSource, u string) *store.ProjectSource {
	var found *store.ProjectSource
	for i := range sources {
		if u != "" && sources[i].URL == u && (found == nil || found.Status != StatusActive && sources[i].Status == StatusActive) {
			found = &sources[i]
		}
	}
	return found
}

// privateURL says why u is not a public address, or "" when it is: a
// reference by url must be one anybody can open (publish.PrivateURL, which
// reads the host as resolvers do).
func privateURL(u string) string { return publish.PrivateURL(u) }

// QuoteCheck is one quote of the draft checked against its bound source.
type QuoteCheck struct {
	// CriterionID and SourceID (as the rules declare it) place the quote;
	// CriterionID is empty for a named value's or table's quote, which
	// ValueID places instead.
	CriterionID string `json:"criterion_id"`
	// ValueID is the named value or table whose quote this is; empty for
	// a criterion's.
	ValueID  string `json:"value_id,omitempty" doc:"The named value or table whose quote this is; absent for a criterion's (criterion_id is then empty)."`
	SourceID string `json:"source_id"`
	// ProjectSourceID is the project source it was checked against; empty
	// when the declared source is unbound.
	ProjectSourceID string `json:"project_source_id"`
	// Quote is the quote as written.
	Quote string `json:"quote"`
	// Verified is true when the quote is in the source's text.
	Verified bool `json:"verified"`
	// Page is the PDF page it was found on; 0 otherwise.
	Page int `json:"page,omitempty"`
	// Nearest is, for a quote not found in its bound source, the passage
	// of that source nearest it, so the author can correct the quote; nil
	// when the quote was found, its source is unbound or no passage is
	// close enough (see NearestPassage).
	Nearest *NearestPassage `json:"nearest_passage,omitempty" doc:"Only on a quote not found in its bound source: the source's passage nearest it, when one is close enough."`
	// start and end are the match's offsets in the source's text.
	start, end int
}

// Citer names the declaration that makes the quote, as messages say it:
// "criterion hours" or "value net_income".
func (q QuoteCheck) Citer() string {
	if q.ValueID != "" {
		return "value " + q.ValueID
	}
	return "criterion " + q.CriterionID
}

// NearestPassage is the passage of a source nearest a quote that is not
// in it (source.Words.Nearest): the words whose alignment with the
// quote's costs least, a typo costing part of a word, case and
// punctuation nothing. Only the first source.MaxNearestScan bytes of a
// source are searched, only quotes of at most source.MaxNearestQuoteWords
// words get one, and only the first MaxNearestQuotes unverified quotes of
// a draft, so the search costs little whatever the draft and sources.
type NearestPassage struct {
	// Text is the passage with white space collapsed: as a quote, it is
	// found in the source.
	Text string `json:"text" doc:"The passage, white space collapsed: a quote the source verifies."`
	// Offset and End are its byte offsets in the source's extracted text,
	// the text quotes are verified against.
	Offset int `json:"offset" doc:"Byte offset of the passage's first character in the source's extracted text (the text quotes are verified against)."`
	End    int `json:"end" doc:"Byte offset just past the passage's last character."`
	// Page is the PDF page the passage starts on; 0 (left out) otherwise.
	Page int `json:"page,omitempty" doc:"The PDF page the passage starts on; absent for other sources."`
	// Similarity is source.Passage's: 1 less the cost of aligning the
	// quote's words with the passage's, per quote word.
	Similarity float64 `json:"similarity" minimum:"0" maximum:"1" doc:"1 less the cost of aligning the quote's words with the passage's per quote word (a word left out or added costs 1, a typo part of one; case and punctuation are ignored). Suggested from 0.6."`
}

// MaxNearestQuotes is how many unverified quotes of one draft are given a
// nearest passage, in the draft's order.
const MaxNearestQuotes = 100

// checkQuotes verifies every quote of rules against the text of the
// project source its declared source is bound to.
func checkQuotes(rules *engine.Ruleset, bindings []binding) []QuoteCheck {
	bound := map[string]*store.ProjectSource{}
	for _, b := range bindings {
		bound[b.decl.ID] = b.src
	}
	normalised := map[string]*engine.SourceText{}
	words := map[string]*source.Words{}
	nearest := 0
	var out []QuoteCheck
	for _, ci := range rules.CitedQuotes() {
		q := QuoteCheck{SourceID: ci.Source, Quote: ci.Quote}
		if ci.Kind == "value" {
			q.ValueID = ci.ID
		} else {
			q.CriterionID = ci.ID
		}
		if src := bound[ci.Source]; src != nil {
			q.ProjectSourceID = src.ID
			n := normalised[src.ID]
			if n == nil {
				n = engine.NewSourceText(src.Text)
				normalised[src.ID] = n
			}
			q.start, q.end, q.Verified = n.Locate(ci.Quote)
			if q.Verified {
				q.Page = source.PageOf(src.Pages, q.start)
			} else if nearest < MaxNearestQuotes {
				nearest++
				w := words[src.ID]
				if w == nil {
					w = source.NewWords(src.Text)
					words[src.ID] = w
				}
				q.Nearest = nearestPassage(src, w, ci.Quote)
			}
		}
		out = append(out, q)
	}
	return out
}

// nearestPassage is the passage of src (its words w) nearest quote, or
// nil.
func nearestPassage(src *store.ProjectSource, w *source.Words, quote string) *NearestPassage {
	p, ok := w.Nearest(quote)
	if !ok {
		return nil
	}
	return &NearestPassage{Text: engine.CollapseSpace(src.Text[p.Start:p.End]), Offset: p.Start, End: p.End,
		Page: source.PageOf(src.Pages, p.Start), Similarity: math.Round(p.Similarity*1000) / 1000}
}

// ProvenanceReport says how well the draft's quotes rest on the project's
// sources.
type ProvenanceReport struct {
	// Totals count the quotes verified and flagged, and the criteria with
	// no citation at all (discretionary ones included).
	Totals ProvenanceTotals `json:"totals"`
	// Coverage is, per source, the share of its clauses some verified
	// quote cites, with the uncited passages.
	Coverage []SourceCoverage `json:"coverage" nullable:"false"`
	// Quotes are every quote's check.
	Quotes []QuoteCheck `json:"quotes" nullable:"false"`
}

// ProvenanceTotals are the report's counts.
type ProvenanceTotals struct {
	Verified int `json:"verified"`
	Flagged  int `json:"flagged"`
	Uncited  int `json:"uncited"`
}

// SourceCoverage is one source's clause coverage.
type SourceCoverage struct {
	SourceID string `json:"source_id"`
	Filename string `json:"filename"`
	Status   string `json:"status"`
	// Clauses counts the source's clauses (source.Clauses) and
	// CitedClauses those a verified quote overlaps.
	Clauses      int `json:"clauses"`
	CitedClauses int `json:"cited_clauses"`
	// Share is CitedClauses / Clauses, 0 for a source with no clause.
	Share float64 `json:"share"`
	// Uncited are the uncited clauses' texts, each cut to
	// MaxPassageLength, the first MaxUncitedPassages of them.
	Uncited []string `json:"uncited_passages" nullable:"false"`
}

// Report limits: a report stays small whatever the sources' size.
const (
	MaxUncitedPassages = 50
	MaxPassageLength   = 240
)

// provenanceReport builds the report from the quote checks.
func provenanceReport(rules *engine.Ruleset, sources []store.ProjectSource, quotes []QuoteCheck) ProvenanceReport {
	rep := ProvenanceReport{Coverage: []SourceCoverage{}, Quotes: quotes}
	if rep.Quotes == nil {
		rep.Quotes = []QuoteCheck{}
	}
	spans := map[string][][2]int{}
	for _, q := range quotes {
		if q.Verified {
			rep.Totals.Verified++
			spans[q.ProjectSourceID] = append(spans[q.ProjectSourceID], [2]int{q.start, q.end})
		} else {
			rep.Totals.Flagged++
		}
	}
	for gi := range rules.Groups {
		for _, c := range rules.Groups[gi].Criteria {
			if len(c.Citations) == 0 {
				rep.Totals.Uncited++
			}
		}
	}
	for _, src := range sources {
		clauses := substantive(src.Text, source.Clauses(src.Text))
		covered := source.Coverage(src.Text, clauses, spans[src.ID])
		cov := SourceCoverage{SourceID: src.ID, Filename: src.Filename, Status: src.Status, Clauses: len(clauses), Uncited: []string{}}
		for i, ok := range covered {
			if ok {
				cov.CitedClauses++
			} else if len(cov.Uncited) < MaxUncitedPassages {
				cov.Uncited = append(cov.Uncited, passage(clauses[i].Text(src.Text)))
			}
		}
		if cov.Clauses > 0 {
			cov.Share = float64(cov.CitedClauses) / float64(cov.Clauses)
		}
		rep.Coverage = append(rep.Coverage, cov)
	}
	return rep
}

// MinClauseWords is the fewest words a clause needs to count for
// coverage: shorter ones are headings and numbers ("Section 1."), which
// state no condition a rule could cite.
const MinClauseWords = 4

// counts reports whether coverage counts clause c of text: not a heading
// (source.Clause.Heading) and at least MinClauseWords words.
func counts(text string, c source.Clause) bool {
	return !c.Heading && len(strings.Fields(c.Text(text))) >= MinClauseWords
}

// substantive keeps the clauses coverage counts.
func substantive(text string, clauses []source.Clause) []source.Clause {
	out := clauses[:0:0]
	for _, c := range clauses {
		if counts(text, c) {
			out = append(out, c)
		}
	}
	return out
}

// passage is a clause's text with white space collapsed, cut to
// MaxPassageLength bytes on a rune boundary.
func passage(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= MaxPassageLength {
		return text
	}
	cut := MaxPassageLength
	for cut > 0 && !isRuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// SourceCheck is the warn-only comparison of the draft with the project's
// authoring inputs.
type SourceCheck struct {
	// Status is ok, warnings, error or not_run.
	Status string `json:"status" enum:"ok,warnings,error,not_run"`
	// Findings are what it found, each a kind and a message.
	Findings []SourceFinding `json:"findings" nullable:"false"`
}

// SourceFinding is one finding of the source check.
type SourceFinding struct {
	// Kind is mismatch, unverifiable or no_authoring_inputs_recorded.
	Kind string `json:"kind" enum:"mismatch,unverifiable,no_authoring_inputs_recorded"`
	// SourceID names the project source concerned, when one is.
	SourceID string `json:"source_id,omitempty"`
	// Message says what was found.
	Message string `json:"message"`
}

// sourceCheck compares the draft with the project's sources: mismatch when
// a quote rests on a source that is no longer active, unverifiable when a
// criterion cites nothing that can be checked, and
// no_authoring_inputs_recorded when the draft carries no record of the
// sources it was written from (a hand-written draft). It is not_run for a
// project without sources, and error when the draft could not be checked
// at all. It never blocks.
func sourceCheck(p store.Project, rules *engine.Ruleset, sources []store.ProjectSource, quotes []QuoteCheck) SourceCheck {
	chk := SourceCheck{Status: "ok", Findings: []SourceFinding{}}
	if len(sources) == 0 {
		chk.Status = "not_run"
		return chk
	}
	if rules == nil {
		chk.Status = "error"
		return chk
	}
	status := map[string]string{}
	for _, s := range sources {
		status[s.ID] = s.Status
	}
	seen := map[string]bool{}
	for _, q := range quotes {
		if st := status[q.ProjectSourceID]; q.ProjectSourceID != "" && st != StatusActive && !seen[q.ProjectSourceID] {
			seen[q.ProjectSourceID] = true
			chk.Findings = append(chk.Findings, SourceFinding{Kind: "mismatch", SourceID: q.ProjectSourceID,
				Message: fmt.Sprintf("quotes rest on %s, which is %s", q.ProjectSourceID, st)})
		}
	}
	for gi := range rules.Groups {
		for _, c := range rules.Groups[gi].Criteria {
			if len(c.Citations) == 0 {
				chk.Findings = append(chk.Findings, SourceFinding{Kind: "unverifiable",
					Message: fmt.Sprintf("criterion %s cites no source, so nothing can verify it", c.ID)})
			}
		}
	}
	if len(p.DraftInputs) == 0 {
		chk.Findings = append(chk.Findings, SourceFinding{Kind: "no_authoring_inputs_recorded",
			Message: "the draft was written by hand, so no record says which sources and guidance it was written from"})
	}
	if len(chk.Findings) > 0 {
		chk.Status = "warnings"
	}
	return chk
}
