package rulebook

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
)

// identitySpec is a small spec with every kind of content set.
func identitySpec() (Spec, map[string]*string) {
	spec := Spec{Name: "Pensions", Slug: "test/pensions",
		Sections: []Section{
			{Letter: "A", SectionID: "au_age_pension", RulesetID: "au_age_pension:20260115-aaaa", ContentDigest: "sha256:01"},
			{Letter: "B", SectionID: "uk_state_pension_age", RulesetID: "uk_state_pension_age:20260115-bbbb", ContentDigest: "sha256:02"},
		},
		Outcome: &Node{Op: OpOr, Args: []*Node{{Section: "A"}, {Op: OpNot, Args: []*Node{{Section: "B"}}}}},
		Overlay: map[string]FieldOverlay{
			"person.date_of_birth": {Question: ptr("When were you born?"), Weight: ptr(2)},
			"person.sex":           {Notes: []engine.Note{}},
		},
	}
	hints := map[string]*string{"preamble": ptr("Welcome <b>back</b> & hello"), "stuck": ptr("Ask again.")}
	return spec, hints
}

// TestContentIdentityDocument pins the exact document hashed, so that a
// change to it is a deliberate one (it would give every release content a
// new identity).
func TestContentIdentityDocument(t *testing.T) {
	t.Parallel()
	spec, hints := identitySpec()
	doc := `{"field_overlay":{"person.date_of_birth":{"question":"When were you born?","weight":2},"person.sex":{"notes":[]}},` +
		`"identity_version":1,` +
		`"outcome_logic":{"args":[{"section":"A"},{"args":[{"section":"B"}],"op":"not"}],"op":"or"},` +
		`"robot_hints":{"preamble":"Welcome <b>back</b> & hello","stuck":"Ask again."},` +
		`"sections":[{"content_digest":"sha256:01","letter":"A","ruleset_id":"au_age_pension:20260115-aaaa","section_id":"au_age_pension"},` +
		`{"content_digest":"sha256:02","letter":"B","ruleset_id":"uk_state_pension_age:20260115-bbbb","section_id":"uk_state_pension_age"}]}`
	sum := sha256.Sum256([]byte(doc))
	want := "sha256:" + hex.EncodeToString(sum[:])
	got, err := ContentIdentity(spec, hints)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("identity %s, want %s (the hash of %s)", got, want, doc)
	}
}

func TestContentIdentityInvariance(t *testing.T) {
	t.Parallel()
	spec, hints := identitySpec()
	want, err := ContentIdentity(spec, hints)
	if err != nil {
		t.Fatal(err)
	}
	same := func(name string, s Spec, h map[string]*string) {
		t.Helper()
		got, err := ContentIdentity(s, h)
		if err != nil || got != want {
			t.Errorf("%s: identity %s, %v; want %s", name, got, err, want)
		}
	}
	// Maps built in other orders, many times over (Go randomises map
	// iteration, so each call sees another order).
	for range 20 {
		s := spec
		s.Overlay = map[string]FieldOverlay{}
		s.Overlay["person.sex"] = spec.Overlay["person.sex"]
		s.Overlay["person.date_of_birth"] = spec.Overlay["person.date_of_birth"]
		h := map[string]*string{"stuck": hints["stuck"]}
		h["preamble"] = ptr(*hints["preamble"])
		same("reordered maps", s, h)
	}
	s := spec
	s.Name, s.Slug, s.Description = "Renamed", "other/slug", "A description"
	s.Sections = append([]Section(nil), spec.Sections...)
	s.Sections[0].Slug = "au/age-pension"
	same("labels", s, hints)
	s = spec
	s.Overlay = map[string]FieldOverlay{"person.policy": {}}
	for k, v := range spec.Overlay {
		s.Overlay[k] = v
	}
	same("an overlay entry that sets nothing", s, hints)
	h := map[string]*string{"general_context": nil}
	for k, v := range hints {
		h[k] = v
	}
	same("a null hint", spec, h)
	s = spec
	s.Facts = []SectionFact{}
	same("an empty list of section facts", s, hints)

	// Absent and default spell the same content.
	plain := Spec{Sections: spec.Sections}
	a, _ := ContentIdentity(plain, nil)
	plain.Outcome = DefaultOutcome(2)
	plain.Overlay = map[string]FieldOverlay{}
	b, _ := ContentIdentity(plain, map[string]*string{})
	if a != b || a == "" {
		t.Errorf("nil and default content: %s and %s", a, b)
	}
}

func TestContentIdentityChanges(t *testing.T) {
	t.Parallel()
	base, hints := identitySpec()
	want, err := ContentIdentity(base, hints)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{want: "base"}
	for _, tc := range []struct {
		name   string
		change func(s *Spec, h map[string]*string)
	}{
		{"tree", func(s *Spec, _ map[string]*string) { s.Outcome = &Node{Op: OpAnd, Args: s.Outcome.Args} }},
		{"default tree", func(s *Spec, _ map[string]*string) { s.Outcome = nil }},
		{"ruleset id", func(s *Spec, _ map[string]*string) { s.Sections[1].RulesetID += "x" }},
		{"content digest", func(s *Spec, _ map[string]*string) { s.Sections[0].ContentDigest = "sha256:03" }},
		{"section id", func(s *Spec, _ map[string]*string) { s.Sections[0].SectionID = "au_pension" }},
		{"section order", func(s *Spec, _ map[string]*string) {
			s.Sections[0], s.Sections[1] = s.Sections[1], s.Sections[0]
			s.Sections[0].Letter, s.Sections[1].Letter = "A", "B"
		}},
		{"one section fewer", func(s *Spec, _ map[string]*string) { s.Sections = s.Sections[:1]; s.Outcome = nil }},
		{"overlay question", func(s *Spec, _ map[string]*string) {
			s.Overlay["person.date_of_birth"] = FieldOverlay{Question: ptr("Born when?"), Weight: ptr(2)}
		}},
		{"overlay weight", func(s *Spec, _ map[string]*string) {
			s.Overlay["person.date_of_birth"] = FieldOverlay{Question: ptr("When were you born?"), Weight: ptr(3)}
		}},
		{"overlay notes left alone", func(s *Spec, _ map[string]*string) { s.Overlay["person.sex"] = FieldOverlay{} }},
		{"overlay description emptied", func(s *Spec, _ map[string]*string) {
			s.Overlay["person.sex"] = FieldOverlay{Notes: []engine.Note{}, Description: ptr("")}
		}},
		{"overlay note", func(s *Spec, _ map[string]*string) {
			s.Overlay["person.sex"] = FieldOverlay{Notes: []engine.Note{{Text: "WHY: x"}}}
		}},
		{"hint text", func(_ *Spec, h map[string]*string) { h["stuck"] = ptr("Ask again!") }},
		{"hint added", func(_ *Spec, h map[string]*string) { h["persona"] = ptr("") }},
		{"hint removed", func(_ *Spec, h map[string]*string) { delete(h, "stuck") }},
		{"section fact", func(s *Spec, _ map[string]*string) {
			s.Facts = []SectionFact{{Field: "person.gets_pension", Section: "A"}}
		}},
		{"section fact's section", func(s *Spec, _ map[string]*string) {
			s.Facts = []SectionFact{{Field: "person.gets_pension", Section: "B"}}
		}},
	} {
		spec, h := identitySpec()
		tc.change(&spec, h)
		got, err := ContentIdentity(spec, h)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%s: same identity as %s", tc.name, prev)
		}
		seen[got] = tc.name
	}
}

func TestContentIdentityRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(s *Spec)
		want   string
	}{
		{"letter", func(s *Spec) { s.Sections[1].Letter = "C" }, `section 2 is lettered "C"`},
		{"tree", func(s *Spec) { s.Outcome = &Node{Section: "C"} }, "no section C"},
		{"no sections", func(s *Spec) { s.Sections, s.Outcome = nil, nil }, "missing node"},
	} {
		spec, hints := identitySpec()
		tc.change(&spec)
		if _, err := ContentIdentity(spec, hints); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "content identity: ") {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
