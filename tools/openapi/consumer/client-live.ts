// client-live.ts BASE_URL API_KEY — calls a live Eligo server through the
// TypeScript client as its users install it (the package clients/ts packs,
// installed into this consumer project by check.sh) and fails on any answer that is
// not what the API promises: list, schema, /decide with explanation,
// explain-failure, /usage with a key, and a 404 and a 422 read through the
// client's error types. The Go test TestTypeScriptClientAgainstALiveServer
// starts the server, with demo/us-fmla-employee published, and runs it.

import { createEligoClient, type NotFoundError, type ValidationError } from "@eligo/client";

const [baseUrl, apiKey] = process.argv.slice(2);
if (!baseUrl || !apiKey) {
  throw new Error("usage: node client-live.js BASE_URL API_KEY");
}

function check(ok: boolean, what: string, got: unknown): void {
  if (!ok) {
    throw new Error(`${what}: got ${JSON.stringify(got)?.slice(0, 400)}`);
  }
}

const anonymous = createEligoClient({ baseUrl });
const keyed = createEligoClient({ baseUrl, apiKey });

const list = await anonymous.GET("/rulesets");
check(list.data?.length === 1 && list.data[0].slug === "demo/us-fmla-employee", "list", list.data ?? list.error);
const rulesetId: string = list.data![0].ruleset_id;

const schema = await anonymous.GET("/rulesets/{ruleset_id}/schema", { params: { path: { ruleset_id: "demo/us-fmla-employee" } } });
const months = schema.data?.fields.find((f) => f.field_id === "employment.months_employed");
check(months?.field_type === "int", "schema", schema.data ?? schema.error);

const answers = { "employment.employer_type": "private", "employment.months_employed": 3 };
const decision = await anonymous.POST("/decide", {
  body: { ruleset_id: rulesetId, field_values: answers, include_explanation: true },
});
const d = decision.data;
check(d?.decision === "not_eligible" && d.explanation?.decision === "not_eligible", "decide", d ?? decision.error);
const failed = d!.explanation!.groups.flatMap((g) => g.criteria).filter((c) => c.status === "not_satisfied");
check(failed.length > 0, "decide explanation", d!.explanation);
check(decision.response.headers.get("X-Request-Id") !== null, "decide X-Request-Id", [...decision.response.headers]);

const why = await anonymous.POST("/rulesets/{ruleset_id}/explain-failure", {
  params: { path: { ruleset_id: rulesetId } },
  body: { expected_outcome: "eligible", field_values: answers },
});
check(why.data !== undefined && why.data.actual_outcome !== "eligible" && Object.keys(why.data.reasons).length > 0 &&
  Array.isArray(why.data.field_errors), "explain-failure", why.data ?? why.error);

const usage = await keyed.GET("/usage");
check((usage.data?.classes.length ?? 0) > 0 && usage.data?.rolling["7d"] !== undefined, "usage", usage.data ?? usage.error);

const missing = await anonymous.GET("/rulesets/{ruleset_id}/schema", { params: { path: { ruleset_id: "demo/no-such-ruleset" } } });
const notFound: NotFoundError | undefined = missing.response.status === 404 ? (missing.error as NotFoundError) : undefined;
check(typeof notFound?.detail === "string", "404", missing.error);

const invalid = await anonymous.GET("/rulesets", { params: { query: { limit: 0 } } });
const validation: ValidationError | undefined = invalid.response.status === 422 ? (invalid.error as ValidationError) : undefined;
check(validation?.detail[0]?.loc[0] === "query" && validation.detail[0].loc[1] === "limit", "422", invalid.error);

console.log(JSON.stringify({ ok: true, decision: d!.decision, failed: failed.map((c) => c.criterion_id) }));
