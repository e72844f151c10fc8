// Calls to the open surface of Eligo's API, on the origin that served the
// console: anonymous, no credentials, JSON in and out.

import { objectText } from './answers.js';
import type { Decision, FailureExplanation, GraphResponse, Outcome, RulesetSummary, Schema } from './types.js';

/** The API root, on this origin. */
export const apiRoot = '/api/v1/public';

/** ApiError is a refusal from the API, with a message fit to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** problemText reads the API's error bodies: a string detail, a problem or a validation list. */
export function problemText(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') {
    return detail;
  }
  if (Array.isArray(detail)) {
    return detail.map((d) => String((d as { msg?: unknown }).msg ?? '')).filter(Boolean).join('; ') || `HTTP ${status}`;
  }
  if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') {
    return (detail as { message: string }).message;
  }
  if (status === 429) {
    return 'Too many requests from this address today; try again later.';
  }
  return `The service answered HTTP ${status}.`;
}

async function call<T>(path: string, init?: RequestInit): Promise<{ body: T; headers: Headers }> {
  const res = await fetch(apiRoot + path, { credentials: 'omit', ...init });
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    throw new ApiError(res.status, problemText(res.status, body));
  }
  return { body: body as T, headers: res.headers };
}

/** ref writes a slug or ruleset id as one path segment (a slug's "/" as %2F). */
export function ref(id: string): string {
  return encodeURIComponent(id);
}

/**
 * listRulesets returns the public rulesets matching q (all of them when q is
 * empty), following X-Next-Cursor page by page: a short page never means
 * the end.
 */
export async function listRulesets(q: string, maxPages = 20): Promise<RulesetSummary[]> {
  const out: RulesetSummary[] = [];
  let cursor = '';
  for (let page = 0; page < maxPages; page++) {
    const params = new URLSearchParams({ limit: '100' });
    if (q) params.set('q', q);
    if (cursor) params.set('cursor', cursor);
    const { body, headers } = await call<RulesetSummary[]>('/rulesets?' + params.toString());
    out.push(...body);
    cursor = headers.get('X-Next-Cursor') ?? '';
    if (!cursor) break;
  }
  return out;
}

/** schema reads a ruleset's fields. */
export async function schema(id: string): Promise<Schema> {
  return (await call<Schema>(`/rulesets/${ref(id)}/schema`)).body;
}

/** graph reads a ruleset's graph and its Mermaid text. */
export async function graph(id: string): Promise<GraphResponse> {
  return (await call<GraphResponse>(`/rulesets/${ref(id)}/graph`)).body;
}

/** decide posts a /decide body (see decideBody). */
export async function decide(body: string): Promise<Decision> {
  return (await call<Decision>('/decide', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).body;
}

/**
 * explainFailure asks which criteria, at least, stand between the answers
 * and the expected outcome. It needs the concrete ruleset id.
 */
export async function explainFailure(rulesetId: string, fieldValues: string, expected: Outcome): Promise<FailureExplanation> {
  const body = objectText([
    ['field_values', fieldValues],
    ['expected_outcome', JSON.stringify(expected)],
  ]);
  return (
    await call<FailureExplanation>(`/rulesets/${ref(rulesetId)}/explain-failure`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    })
  ).body;
}
