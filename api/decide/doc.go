// Package decide is POST /decide, the evaluation hot path: field values
// in, an eligibility decision out, with its audit envelope. Register adds
// the operation to an api.Server with the services it calls (Deps) and its
// tuning (Config: the decision cache, the record writer).
//
// A /decide request goes, in order, through:
//
//   - the api core's middleware (api): authentication, metering of the
//     decide class (an anonymous call priced by its costly flags,
//     anonymousPrice), the body's size cap;
//   - decoding (decode.go): one strict pass over the body's top-level
//     members, with field_values kept as bytes; anything that pass does not
//     accept is validated against the documented schema for the 422 items;
//   - resolution (catalog): the ruleset in force on the decision date for
//     the caller, or a rulebook's release composed into one ruleset, as
//     prepared, compiled content;
//   - conversion (api.ConvertFieldValues): the answers hashed
//     (inputs_hash) and converted into engine inputs, unknown keys and bad
//     values becoming field_errors rather than a 422;
//   - the decision cache (cache.go): an identical request on the same
//     content (same answers, flags, inquiry context and, for rules that
//     read it, date) is answered from memory;
//   - on a miss, evaluation (engine: the three-valued evaluator, and the
//     trace, explanation and graph overlay when asked) and the plan
//     (solver's Planner: next_question, optimal_path, choice_context);
//   - the envelope (envelope.go): the per-call members (decision id, time,
//     date, hashes, warnings, timing) around the cached ones;
//   - the decision record (decisionlog): the request waits until its record
//     is written, so a decision shown is never lost; a backlogged log is a
//     503 decision_log_backlogged, and no decision is issued.
//
// The boolean flags of the body are declared once, in flags.go, and read
// from there by the reader, the cache key, the record and the price. The
// operation's long description (description) is the reference a caller
// reads in the OpenAPI document; README, "Evaluating: `POST /decide`",
// walks through it with examples.
package decide
