// Package decide is POST /decide, the hot path: a decision on field values
// against a published ruleset or rulebook release, in the audit envelope.
// A request goes api/decide → catalog (the prepared ruleset) → engine
// (evaluate) → solver/plan (next question, path) → decisionlog (the
// record), each a plain call.
//
// The files follow the request:
//
//   - decide.go: Register and the handler, the steps in order;
//     description.go embeds the operation's reference text
//     (description.md), which the OpenAPI documents carry.
//   - request.go: the request body and the checks across its members;
//     decode.go reads it in one strict pass and prices an anonymous call
//     (flags.go: the boolean members and their cost).
//   - evaluate.go: resolve, convert, and on a cache miss evaluate, trace,
//     explain and plan; cache.go: the decision and conversion caches.
//   - response.go: the envelope's types and the part of a decision the
//     cache keeps; envelope.go writes the per-call members around it;
//     schema.go describes the trace and explanation in the document.
package decide
