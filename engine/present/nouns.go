package present

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file names fields in the plain sentences (sentence.go) and the
// graph: by the label the ruleset gives, else by a readable form of the
// id that keeps the capitals of the names it spells ("in Great Britain",
// "US citizen") and tells apart two fields whose names read the same
// ("claimant in Great Britain", "child in Great Britain").

// fieldNoun is the plain name of field slot s as a sentence uses it: its
// label, else the part of its id after the dot with underscores as spaces
// ("months employed"). A generic one-word name says too little on its own
// ("size", "date"), so it keeps its group in front ("household size"), as
// does a name another field of the ruleset shares (claimant.in_great_britain
// and child.in_great_britain read "claimant in Great Britain" and "child
// in Great Britain", never the same words for two questions). Proper
// nouns get their capitals back (properNoun).
func (r rules) fieldNoun(s int) string {
	f := &r.Fields[s]
	if f.Member != nil {
		return r.memberNoun(f)
	}
	if f.Label != "" {
		return lowerFirst(f.Label)
	}
	group, name := plainName(f.ID)
	if group != "" && r.nameShared(s, name) {
		name = group + " " + name
	}
	return properNoun(name, f.Question, f.Description)
}

// plainName splits a field id into its group and its name in words:
// "employment.months_employed" gives "employment", "months employed"; a
// generic name gets its group ("household size"), and then the group is
// "" since it is already said.
func plainName(id string) (group, name string) {
	group, name, ok := strings.Cut(id, ".")
	if !ok {
		return "", strings.ReplaceAll(group, "_", " ")
	}
	if code := nameCurrency(name); code != "" {
		// The amount says its currency ("€43,759.8"): the name need not.
		words := strings.Split(name, "_")
		name = strings.Join(slices.DeleteFunc(words, func(w string) bool { return strings.ToUpper(w) == code }), "_")
	}
	group = strings.ReplaceAll(group, "_", " ")
	if genericNames[name] {
		return "", group + " " + strings.ReplaceAll(name, "_", " ")
	}
	return group, strings.ReplaceAll(name, "_", " ")
}

// nameShared reports whether a field other than slot s, with no label of
// its own, reads name too.
func (r rules) nameShared(s int, name string) bool {
	for i := range r.Fields {
		if i == s || r.Fields[i].Label != "" {
			continue
		}
		if _, other := plainName(r.Fields[i].ID); other == name {
			return true
		}
	}
	return false
}

// genericNames are one-word field names that need their group to mean
// anything to a reader.
var genericNames = map[string]bool{
	"date": true, "start": true, "end": true, "size": true, "amount": true, "count": true,
	"number": true, "total": true, "type": true, "kind": true, "status": true, "value": true,
	"region": true, "income": true, "level": true, "rate": true, "code": true, "name": true,
}

// initialisms are words field ids spell in lower case that people write in
// capitals.
var initialisms = map[string]string{
	"us": "US", "usa": "USA", "uk": "UK", "gb": "GB", "eu": "EU", "eea": "EEA", "nz": "NZ", "dc": "DC",
	"ssi": "SSI", "snap": "SNAP", "magi": "MAGI", "fpl": "FPL", "fmla": "FMLA", "gp": "GP", "nhs": "NHS",
}

// placeNames are two-word names field ids spell in lower case.
var placeNames = map[string]string{
	"great britain": "Great Britain", "united kingdom": "United Kingdom", "united states": "United States",
	"northern ireland": "Northern Ireland", "new zealand": "New Zealand",
}

// properNoun gives the words of a name made from a field id their
// capitals: initialisms ("US citizen") and place names ("in Great
// Britain"), and any word the field's question or description writes
// capitalised inside a sentence and never in lower case ("lives in
// Canada" when the question asks "Do you live in Canada?"). A one-letter
// word takes its capital only after the word it follows there ("Medicare
// Part A").
func properNoun(name string, texts ...string) string {
	words := strings.Fields(name)
	forms := capitalised(texts)
	for i, w := range words {
		switch up, ok := initialisms[w]; {
		case ok:
			words[i] = up
		case utf8.RuneCountInString(w) > 1 && forms[w] != "":
			words[i] = forms[w]
		case utf8.RuneCountInString(w) == 1 && i > 0 && forms[strings.ToLower(words[i-1])+" "+w] != "":
			words[i] = forms[strings.ToLower(words[i-1])+" "+w]
		}
	}
	for i := 0; i+1 < len(words); i++ {
		if p, ok := placeNames[strings.ToLower(words[i]+" "+words[i+1])]; ok {
			words[i], words[i+1], _ = strings.Cut(p, " ")
		}
	}
	return strings.Join(words, " ")
}

// capitalised maps the lower case of each word texts write with a capital
// inside a sentence, and never in lower case, to that written form; a
// one-letter capital word is keyed with the word before it ("part a" to
// "A", from "Part A"). The first word of a sentence says nothing about
// its capitals and is left out.
func capitalised(texts []string) map[string]string {
	forms := map[string]string{}
	lower := map[string]bool{}
	for _, text := range texts {
		start, prev := true, ""
		for _, raw := range strings.Fields(text) {
			w := strings.TrimFunc(raw, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
			key := strings.ToLower(w)
			first, _ := utf8.DecodeRuneInString(w)
			switch {
			case w == "" || start:
			case !unicode.IsUpper(first):
				lower[key] = true
			case utf8.RuneCountInString(w) == 1 && prev != "":
				forms[prev+" "+key] = w
			default:
				forms[key] = w
			}
			start = w == "" && start || strings.ContainsAny(raw[len(raw)-1:], ".?!:")
			prev = key
		}
	}
	for k := range lower {
		delete(forms, k)
	}
	return forms
}

// nameCurrency is the currency code a field's name ends in or contains
// as a word ("gross_annual_salary_eur" is in EUR), or "": a field that
// declares no unit is counted in the currency its name states, as the
// console does for its answers.
func nameCurrency(name string) string {
	words := strings.Split(name, "_")
	if len(words) < 2 {
		return ""
	}
	for _, w := range words {
		if code := strings.ToUpper(w); currencyCodes[code] {
			return code
		}
	}
	return ""
}
