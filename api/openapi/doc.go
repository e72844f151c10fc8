// Package openapi publishes the interface's description: it turns the
// document huma generates from the Go types and the route declarations
// (the api package's job) into the published one, served at
// /openapi.json and /openapi-3.0.json (and as YAML), committed as
// api/openapi.json and api/openapi-3.0.json, and read by client
// generators, and it serves the reference page that renders it. The wire
// never depends on it: huma still validates requests with its own
// schemas. What changes is the document's shape and names, so that
// generators give clean code. The facts are on the Go types (names,
// tags, huma's schema hooks) and the Route declarations; what is left as
// a pass over the built document says why in build.
//
//   - schemas are named by what they are, never like an operation's
//     generated wrapper (SchemaName, huma's registry namer: a type whose
//     Go name does not say it declares its published one, Named);
//   - every value set is one named schema, with x-enum-varnames, named
//     by a member's enumName tag, else where it first appears;
//   - every object is a named, reused schema: a Go struct's, or one of
//     the components a hand-written schema registers (resource.Components);
//   - arrays the server never sends as null are not nullable, and every
//     array member says which it is (its nullable tag; markNeverNull);
//   - members whose wire names make poor identifiers carry x-go-name;
//   - every response declares the headers sent with it;
//   - every operation has a request and a response example, recorded from
//     real calls (examples.json, kept true by a test in api/routes),
//     fitted to the 3.0 form (examples.go);
//   - the 3.0 form puts nothing beside a $ref.
package openapi
