package authoring

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// Discovery asks the caller's model to propose, from the active sources,
// a field vocabulary or the sections the sources hold, each with the quote
// it comes from; every quote is then checked against the sources, as a
// draft's would be. Nothing is stored: the team takes what it wants into
// its tests and guidance.

// FieldProposal is one proposed field.
type FieldProposal struct {
	ID         string   `json:"id"`
	Type       string   `json:"type" enum:"int,decimal,bool,date,enum"`
	Question   string   `json:"question"`
	EnumValues []string `json:"enum_values" nullable:"false"`
	Quote      string   `json:"quote"`
	// SourceID is the project source the quote was found in; empty when
	// it was not found.
	SourceID string `json:"source_id"`
	Verified bool   `json:"verified"`
}

// SectionProposal is one proposed section.
type SectionProposal struct {
	SectionID string `json:"section_id"`
	Name      string `json:"name"`
	Quote     string `json:"quote"`
	SourceID  string `json:"source_id"`
	Verified  bool   `json:"verified"`
}

// Discovery is what a discovery call proposes.
type Discovery struct {
	Fields     []FieldProposal   `json:"fields,omitempty"`
	Sections   []SectionProposal `json:"sections,omitempty"`
	TokensUsed int               `json:"tokens_used"`
}

// What a discovery asks for.
const (
	DiscoverFields   = "fields"
	DiscoverSections = "sections"
)

const discoverFieldsPrompt = `From the statute or policy text below, list the facts an applicant must be asked to decide eligibility.
Reply with one fenced block tagged json holding an array of objects: id (group.name, lower case letters, digits and underscores, e.g. employment.months_employed), type (int, decimal, bool, date or enum), question (to ask the applicant), enum_values (for enum, else []), quote (the words of the text the fact comes from, copied exactly).`

const discoverSectionsPrompt = `From the statute or policy text below, list the separate eligibility tests it holds, each of which could be its own ruleset section.
Reply with one fenced block tagged json holding an array of objects: section_id (lower case letters, digits and underscores), name, quote (the words of the text that state the test, copied exactly).`

var (
	jsonBlock     = regexp.MustCompile("(?s)```json[ \t]*\n(.*?)```")
	fieldIDShape  = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)
	sectionIDForm = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Discover runs a discovery of what (fields or sections) with the caller's
// model and key; the prompt is refused over the budget first, from the
// sources' stored estimates and then by a count that stops at the budget,
// as a generation's is.
func (s *Generation) Discover(ctx context.Context, tenantID, projectID, what string, info llm.ModelInfo, model llm.Model, key llm.Key) (Discovery, error) {
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return Discovery{}, err
	}
	sources, err := s.activeSources(ctx, tenantID, projectID, info, "The project has no active source to read.")
	if err != nil {
		return Discovery{}, err
	}
	sources = slices.DeleteFunc(sources, func(s store.ProjectSource) bool { return s.Status != StatusActive })
	instruction := discoverFieldsPrompt
	if what == DiscoverSections {
		instruction = discoverSectionsPrompt
	}
	var b strings.Builder
	for _, src := range sources {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", src.Filename, src.Text)
	}
	messages := []llm.Message{{Role: "system", Content: instruction}, {Role: "user", Content: b.String()}}
	if _, err := countPrompt(info, messages, sources); err != nil {
		return Discovery{}, err
	}
	reply, err := model.Complete(ctx, key, llm.Request{Model: info.Name, Messages: messages})
	if err != nil {
		return Discovery{}, providerFailure(err)
	}
	out := Discovery{TokensUsed: reply.PromptTokens + reply.CompletionTokens}
	body := reply.Content
	if m := jsonBlock.FindStringSubmatch(body); m != nil {
		body = m[1]
	}
	locate := quoteFinder(sources)
	if what == DiscoverSections {
		if err := json.Unmarshal([]byte(body), &out.Sections); err != nil {
			return out, &GenerationError{Stage: StageExtract, Reason: ReasonModelReplyInvalid, Retryable: true, Message: "the model's reply was not the JSON asked for"}
		}
		out.Sections = slices.DeleteFunc(out.Sections, func(p SectionProposal) bool { return !sectionIDForm.MatchString(p.SectionID) })
		for i := range out.Sections {
			out.Sections[i].SourceID, out.Sections[i].Verified = locate(out.Sections[i].Quote)
		}
		return out, nil
	}
	if err := json.Unmarshal([]byte(body), &out.Fields); err != nil {
		return out, &GenerationError{Stage: StageExtract, Reason: ReasonModelReplyInvalid, Retryable: true, Message: "the model's reply was not the JSON asked for"}
	}
	out.Fields = slices.DeleteFunc(out.Fields, func(p FieldProposal) bool {
		return !fieldIDShape.MatchString(p.ID) || !slices.Contains([]string{"int", "decimal", "bool", "date", "enum"}, p.Type)
	})
	for i := range out.Fields {
		if out.Fields[i].EnumValues == nil {
			out.Fields[i].EnumValues = []string{}
		}
		out.Fields[i].SourceID, out.Fields[i].Verified = locate(out.Fields[i].Quote)
	}
	return out, nil
}

// quoteFinder returns where a quote is found among sources.
func quoteFinder(sources []store.ProjectSource) func(string) (string, bool) {
	normalised := make([]*engine.SourceText, len(sources))
	for i := range sources {
		normalised[i] = engine.NewSourceText(sources[i].Text)
	}
	return func(quote string) (string, bool) {
		for i, n := range normalised {
			if n.Contains(quote) {
				return sources[i].ID, true
			}
		}
		return "", false
	}
}
