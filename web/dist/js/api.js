// Calls to the open surface of Eligo's API, on the origin that served the
// console: anonymous, no credentials, JSON in and out.
import { objectText } from './answers.js';
/** The API root, on this origin. */
export const apiRoot = '/api/v1/public';
/** ApiError is a refusal from the API, with a message fit to show. */
export class ApiError extends Error {
    status;
    constructor(status, message) {
        super(message);
        this.status = status;
        this.name = 'ApiError';
    }
}
/** problemText reads the API's error bodies: a string detail, a problem or a validation list. */
export function problemText(status, body) {
    const detail = body?.detail;
    if (typeof detail === 'string') {
        return detail;
    }
    if (Array.isArray(detail)) {
        return detail.map((d) => String(d.msg ?? '')).filter(Boolean).join('; ') || `HTTP ${status}`;
    }
    if (detail && typeof detail === 'object' && typeof detail.message === 'string') {
        return detail.message;
    }
    if (status === 429) {
        return 'Too many requests from this address today; try again later.';
    }
    return `The service answered HTTP ${status}.`;
}
async function call(path, init) {
    const res = await fetch(apiRoot + path, { credentials: 'omit', ...init });
    let body = null;
    try {
        body = await res.json();
    }
    catch {
        body = null;
    }
    if (!res.ok) {
        throw new ApiError(res.status, problemText(res.status, body));
    }
    return { body: body, headers: res.headers };
}
/** ref writes a slug or ruleset id as one path segment (a slug's "/" as %2F). */
export function ref(id) {
    return encodeURIComponent(id);
}
/**
 * listRulesets returns the public rulesets matching q (all of them when q is
 * empty), following X-Next-Cursor page by page: a short page never means
 * the end.
 */
export async function listRulesets(q, maxPages = 20) {
    const out = [];
    let cursor = '';
    for (let page = 0; page < maxPages; page++) {
        const params = new URLSearchParams({ limit: '100' });
        if (q)
            params.set('q', q);
        if (cursor)
            params.set('cursor', cursor);
        const { body, headers } = await call('/rulesets?' + params.toString());
        out.push(...body);
        cursor = headers.get('X-Next-Cursor') ?? '';
        if (!cursor)
            break;
    }
    return out;
}
/** schema reads a ruleset's fields. */
export async function schema(id) {
    return (await call(`/rulesets/${ref(id)}/schema`)).body;
}
/** graph reads a ruleset's graph and its Mermaid text. */
export async function graph(id) {
    return (await call(`/rulesets/${ref(id)}/graph`)).body;
}
/** decide posts a /decide body (see decideBody). */
export async function decide(body) {
    return (await call('/decide', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).body;
}
/**
 * explainFailure asks which criteria, at least, stand between the answers
 * and the expected outcome. It needs the concrete ruleset id.
 */
export async function explainFailure(rulesetId, fieldValues, expected) {
    const body = objectText([
        ['field_values', fieldValues],
        ['expected_outcome', JSON.stringify(expected)],
    ]);
    return (await call(`/rulesets/${ref(rulesetId)}/explain-failure`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
    })).body;
}
