// The console's calls to Eligo's API, typed: anonymous (no credentials) on
// the open surface, or through the signed-in console session for a
// tenant's private rulesets and rulebooks. The requests themselves are
// transport.ts's.

import { objectText, type Target } from './answers.js';
import { request, type Answer } from './transport.js';
import type {
  CriterionText,
  Decision,
  FailureExplanation,
  GraphResponse,
  Outcome,
  RulebookExplain,
  RulebookSchema,
  RulebookSummary,
  RulesetExplain,
  RulesetSummary,
  Schema,
} from './types.js';

/**
 * Api calls the API anonymously, or, with session, as the signed-in
 * console session (its cookie and CSRF token, see transport.ts), so that a
 * tenant's private rulesets and rulebooks answer too. The key itself is
 * never in the page.
 */
export class Api {
  constructor(readonly session = false) {}

  private call<T>(path: string, init: RequestInit = {}): Promise<Answer<T>> {
    return request<T>(path, init, this.session);
  }

  /** pages follows X-Next-Cursor page by page from path (which has a query): a short page never means the end. */
  private async pages<T>(path: string, maxPages = 20): Promise<T[]> {
    const out: T[] = [];
    let cursor = '';
    for (let page = 0; page < maxPages; page++) {
      const { body, headers } = await this.call<T[]>(path + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
      out.push(...body);
      cursor = headers.get('X-Next-Cursor') ?? '';
      if (!cursor) break;
    }
    return out;
  }

  /** listRulesets returns the rulesets the caller sees (the public ones, and a session's own), all pages. */
  listRulesets(): Promise<RulesetSummary[]> {
    return this.pages<RulesetSummary>('/rulesets?limit=100');
  }

  /** listRulebooks returns the public rulebooks (anonymous) or the session's tenant's rulebooks, all pages. */
  listRulebooks(): Promise<RulebookSummary[]> {
    return this.pages<RulebookSummary>('/rulebooks/?limit=100');
  }

  /**
   * schema reads the fields of target. A rulebook's schema names no
   * rulebook, so its name, slug and release come from the rulebook itself.
   */
  async schema(target: Target): Promise<Schema> {
    if (target.kind === 'ruleset') {
      return (await this.call<Schema>(`/rulesets/${ref(target.id)}/schema`)).body;
    }
    const rb = (await this.call<RulebookSchema>(`/rulebooks/${ref(target.id)}/schema`)).body;
    let about: RulebookSummary | undefined;
    try {
      about = (await this.call<RulebookSummary>(`/rulebooks/${ref(rb.rulebook_id)}`)).body;
    } catch {
      about = undefined; // a key that may read the schema but not the rulebook: the id stands in
    }
    return {
      ruleset_id: rb.rulebook_id,
      slug: about?.slug ?? target.id,
      name: about?.name ?? about?.slug ?? target.id,
      ruleset_version: rb.release ? `${rb.release.version} (${rb.release.label})` : 'draft',
      fields: rb.fields,
      engine_version: rb.engine_version,
      sections: rb.sections.map((id) => ({ id, name: rb.section_names?.[id] ?? id })),
    };
  }

  /** graph reads the graph of target and its Mermaid text. */
  async graph(target: Target): Promise<GraphResponse> {
    const kind = target.kind === 'rulebook' ? 'rulebooks' : 'rulesets';
    return (await this.call<GraphResponse>(`/${kind}/${ref(target.id)}/graph`)).body;
  }

  /**
   * criterionTexts reads each criterion's condition in plain language and
   * in the rules language, by criterion id as a decision's explanation
   * names it (a rulebook's prefixed with its section id).
   */
  async criterionTexts(target: Target): Promise<Map<string, CriterionText>> {
    const out = new Map<string, CriterionText>();
    if (target.kind === 'ruleset') {
      for (const c of (await this.call<RulesetExplain>(`/rulesets/${ref(target.id)}/explain`)).body.criteria) out.set(c.criterion_id, c);
      return out;
    }
    for (const s of (await this.call<RulebookExplain>(`/rulebooks/${ref(target.id)}/explain`)).body.sections) {
      for (const c of s.criteria) out.set(`${s.section_id}.${c.criterion_id}`, c);
    }
    return out;
  }

  /** decide posts a /decide body (see decideBody). */
  async decide(body: string): Promise<Decision> {
    return (await this.call<Decision>('/decide', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).body;
  }

  /**
   * explainFailure asks which criteria, at least, stand between the
   * answers and the expected outcome, as of decisionDate when given. It
   * needs the concrete ruleset id.
   */
  async explainFailure(rulesetId: string, fieldValues: string, expected: Outcome, decisionDate = ''): Promise<FailureExplanation> {
    const members: [string, string][] = [
      ['field_values', fieldValues],
      ['expected_outcome', JSON.stringify(expected)],
    ];
    if (decisionDate) members.push(['decision_date', JSON.stringify(decisionDate)]);
    return (
      await this.call<FailureExplanation>(`/rulesets/${ref(rulesetId)}/explain-failure`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: objectText(members),
      })
    ).body;
  }
}

/** ref writes a slug or ruleset id as one path segment (a slug's "/" as %2F). */
export function ref(id: string): string {
  return encodeURIComponent(id);
}
