// Package present shows a compiled ruleset and its decisions to people:
// the graph of fields, criteria, groups and outcome with its evaluation
// overlay (NewGraph, docs/api.md#the-graph), the same graph as a Mermaid
// diagram (Graph.Mermaid), and the plain-language sentences that stand for
// a criterion's condition (CriterionSentence, Sentence) in the graph, the
// schema and the editor's hover.
//
// It reads what package engine compiles and decides and changes none of
// it: the evaluation, its trace and its explanation are the engine's; this
// package only lays them out. It does no I/O.
package present
