package rulebook

import (
	"fmt"
	"slices"
	"strings"
)

// Robot hints are a rulebook's free-text guidance to a conversational
// client, keyed by the beat of the conversation it applies to. The beats
// are a closed set, so that a typo ("preamle") is refused at once rather
// than silently never shown.

// activeBeats are the beats a client acts on today.
var activeBeats = [...]string{"general_context", "preamble", "session_start", "postamble", "session_end", "stuck"}

// reservedBeats are accepted and stored, for clients to come.
var reservedBeats = [...]string{"persona", "conversational_style", "section_transition"}

// ReservedBeats returns the beats that are accepted and kept but that no
// client acts on yet: persona, conversational_style, section_transition.
// The slice is the caller's.
func ReservedBeats() []string { return slices.Clone(reservedBeats[:]) }

// IsBeat reports whether name is an active or reserved beat.
func IsBeat(name string) bool {
	return slices.Contains(activeBeats[:], name) || slices.Contains(reservedBeats[:], name)
}

// CheckHints refuses every key of a robot_hints map that is not a beat,
// each as an "extra_forbidden" problem at ["robot_hints", key] whose
// message lists the allowed beats (the 422 "listing them" of
// docs/api.md#rulebooks), in key order. A nil map (older rulebooks' null) and null texts
// are fine.
func CheckHints(hints map[string]*string) []Problem {
	var problems []Problem
	for _, k := range sortedKeys(hints) {
		if IsBeat(k) {
			continue
		}
		var input any
		if t := hints[k]; t != nil {
			input = *t
		}
		problems = append(problems, Problem{Type: "extra_forbidden", Loc: []any{"robot_hints", k}, Input: input,
			Msg: fmt.Sprintf("unknown robot hint beat %q: the beats are %s; reserved for later: %s",
				k, strings.Join(activeBeats[:], ", "), strings.Join(reservedBeats[:], ", "))})
	}
	return problems
}
