package rulebook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/eligo/eligo/engine"
	"github.com/gowebpki/jcs"
)

// IdentityVersion is the version of the document ContentIdentity hashes.
// It is inside the document, so a later change of the document's shape
// gives new identities instead of colliding with today's.
const IdentityVersion = 1

// ContentIdentity is a rulebook release's content_identity: "sha256:" and
// the hex SHA-256 of the RFC 8785 (JCS) canonical JSON of the release's
// frozen content. Publication compares it to decide whether a publication
// is new content (a new release) or the same content again (the existing
// release and label are reused), and the catalog checks a frozen release
// against it before serving it.
//
// The document hashed is
//
//	{
//	  "identity_version": 1,
//	  "outcome_logic": <the outcome tree as Node marshals it; DefaultOutcome when spec.Outcome is nil>,
//	  "sections": [{"letter": "A", "section_id": ..., "ruleset_id": ..., "content_digest": ...}, ...],
//	  "field_overlay": {"<field id>": {"question": ..., "description": ..., "weight": ..., "notes": [...]}, ...},
//	  "robot_hints": {"<beat>": "<text>", ...},
//	  "section_facts": [{"field": ..., "section": "A"}, ...]
//	}
//
// with the sections in letter order and, in each overlay entry, only the
// members the overlay sets (notes set to none is "notes": []). Being
// canonical JSON, it does not depend on map order. section_facts is
// left out when there are none, so content without facts hashes as it did
// before facts existed. Content that means the
// same hashes the same: a nil Outcome and DefaultOutcome's tree; a nil
// and an empty overlay or hints map; an overlay entry that sets nothing and
// no entry; a hint whose text is null and no hint. The rulebook's name,
// slug and description, and the members' slugs, are labels, not content,
// and are not hashed.
//
// It refuses (with an error) a spec whose sections are not lettered A, B,
// C... in order or whose outcome tree Validate refuses, so that no
// identity is ever given to content Compose would refuse for its shape.
func ContentIdentity(spec Spec, hints map[string]*string) (string, error) {
	doc, err := identityDocument(spec, hints)
	if err != nil {
		return "", fmt.Errorf("content identity: %w", err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("content identity: encode: %w", err)
	}
	canon, err := jcs.Transform(js)
	if err != nil {
		return "", fmt.Errorf("content identity: canonicalise: %w", err)
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// identityDoc is the document ContentIdentity hashes.
type identityDoc struct {
	Version  int                       `json:"identity_version"`
	Outcome  *Node                     `json:"outcome_logic"`
	Sections []identitySection         `json:"sections"`
	Overlay  map[string]map[string]any `json:"field_overlay"`
	Hints    map[string]string         `json:"robot_hints"`
	// Facts are the section facts, in the order given; left out when
	// there are none, so every rulebook without facts keeps the identity
	// it had before facts existed.
	Facts []SectionFact `json:"section_facts,omitempty"`
}

// identitySection is one section of the identity document.
type identitySection struct {
	Letter        string `json:"letter"`
	SectionID     string `json:"section_id"`
	RulesetID     string `json:"ruleset_id"`
	ContentDigest string `json:"content_digest"`
}

func identityDocument(spec Spec, hints map[string]*string) (*identityDoc, error) {
	doc := &identityDoc{Version: IdentityVersion, Outcome: spec.Outcome,
		Sections: make([]identitySection, len(spec.Sections)),
		Overlay:  map[string]map[string]any{}, Hints: map[string]string{}, Facts: spec.Facts}
	if len(spec.Sections) > MaxSections {
		return nil, fmt.Errorf("%d sections: a rulebook composes at most %d", len(spec.Sections), MaxSections)
	}
	for i, s := range spec.Sections {
		if s.Letter != Letter(i) {
			return nil, fmt.Errorf("section %d is lettered %q: sections are lettered A, B, C... in order, so it is %s", i+1, s.Letter, Letter(i))
		}
		doc.Sections[i] = identitySection{Letter: s.Letter, SectionID: s.SectionID, RulesetID: s.RulesetID, ContentDigest: s.ContentDigest}
	}
	if doc.Outcome == nil {
		doc.Outcome = DefaultOutcome(len(spec.Sections))
	}
	if err := doc.Outcome.Validate(len(spec.Sections)); err != nil {
		return nil, err
	}
	for id, o := range spec.Overlay {
		m := map[string]any{}
		if o.Question != nil {
			m["question"] = *o.Question
		}
		if o.Description != nil {
			m["description"] = *o.Description
		}
		if o.Weight != nil {
			m["weight"] = *o.Weight
		}
		if o.Notes != nil {
			m["notes"] = append([]engine.Note{}, o.Notes...)
		}
		if len(m) > 0 {
			doc.Overlay[id] = m
		}
	}
	for beat, text := range hints {
		if text != nil {
			doc.Hints[beat] = *text
		}
	}
	return doc, nil
}
