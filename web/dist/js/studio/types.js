// The authoring API's shapes the studio reads and writes, taken from the
// types generated from the API's OpenAPI document (clients/ts, regenerated
// by `make clients`), so a change to the API shows up here as a type error
// rather than as a blank on screen.
export {};
