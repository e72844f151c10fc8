// What the Generate screen says about a generation, in people's words:
// the stage it is at, its round, tests and tokens, how long it has run,
// what to announce (only when the stage changes, not at every poll), its
// outcome, a refusal over the model's token budget, and how a source
// question settled as guidance is written and recognised. No DOM here, so
// the unit tests read it directly.

import type { components } from '../../../clients/ts/src/schema.js';
import { plural } from './ui.js';

type S = components['schemas'];

export type GenerationStatus = S['GenerationStatus'];
export type GenerationModel = S['GenerationModel'];
export type ModelList = S['ModelList'];
export type SourceQuestion = S['SourceQuestion'];
export type Guidance = S['Guidance'];
export type GuidanceList = S['GuidanceList'];
export type CancelResult = S['CancelResult'];
type Failure = S['TestResult'];

/** GenerationResult is a finished generation's result: the status's result, or generate-and-test's answer. */
export interface GenerationResult {
  ruleset_id?: string;
  accepted: boolean;
  tests_passing: number;
  tests_total: number;
  failures: Failure[] | null;
  provenance_report?: { totals: { verified: number; flagged: number; uncited: number } } | null;
  source_questions?: SourceQuestion[] | null;
  review_hint?: { message: string; actionable_via: string } | null;
  rounds?: Array<{ round: number; kept: boolean }> | null;
  changed_criteria?: string[] | null;
  tokens_used: number;
}

/** stageWords says what a pipeline stage is doing. */
export function stageWords(stage: string): string {
  return (
    (
      {
        assemble: 'Putting the prompt together',
        count: 'Counting the prompt’s tokens',
        call: 'Waiting for the model',
        extract: 'Reading the model’s answer',
        compile: 'Compiling the rules',
        verify_quotes: 'Checking the quotes against the sources',
        test: 'Running the tests',
        repair: 'Asking the model to repair the rules',
      } as Record<string, string>
    )[stage] ?? 'Working'
  );
}

/** isActive says whether a status is of a generation still queued or running. */
export function isActive(st: Pick<GenerationStatus, 'state'> | null | undefined): boolean {
  return st?.state === 'queued' || st?.state === 'running';
}

/** duration writes seconds as "45 s", "2 min 5 s" or "1 h 3 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** number writes a count with thousands separators, the same in every locale (4,072). */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** ProgressFacts are the lines of the progress panel, each already in words. */
export interface ProgressFacts {
  stage: string;
  round: string;
  tests: string;
  tokens: string;
  elapsed: string;
}

/**
 * progressFacts reads an active status as the progress panel's lines;
 * now is the time in milliseconds (Date.now()), for the elapsed time since
 * the generation started (or was queued).
 */
export function progressFacts(st: GenerationStatus, now: number): ProgressFacts {
  const p = st.progress;
  const since = Date.parse(st.started_at ?? st.created_at ?? '');
  const elapsed = Number.isNaN(since) ? '—' : duration((now - since) / 1000);
  if (st.state === 'queued' || !p) {
    return { stage: 'Waiting for a worker to take it', round: '—', tests: '—', tokens: p ? count(p.tokens_used) : '0', elapsed };
  }
  return {
    stage: stageWords(p.stage),
    round: p.round > 0 ? String(p.round) : '—',
    tests: testsLine(p),
    tokens: count(p.tokens_used),
    elapsed,
  };
}

/** beforeTests are the stages of a first round that come before its tests run. */
const beforeTests = new Set(['assemble', 'count', 'call', 'extract', 'compile', 'verify_quotes']);

/** testsLine says how the tests stand: not run yet in a first round until they are, then passing of total. */
function testsLine(p: NonNullable<GenerationStatus['progress']>): string {
  if (p.tests_total === 0) return 'the project has no tests';
  if (p.round <= 1 && beforeTests.has(p.stage)) return `${plural(p.tests_total, 'test')}, not run yet`;
  return `${p.tests_passing} of ${plural(p.tests_total, 'test')} pass`;
}

/**
 * announcement is what to read out when a poll brings next after prev:
 * the new stage (with its round) when it changed, and nothing otherwise,
 * so a screen reader is not told the same thing every second.
 */
export function announcement(prev: GenerationStatus | null, next: GenerationStatus): string {
  if (!isActive(next)) return '';
  const key = (st: GenerationStatus | null): string => (st && isActive(st) ? `${st.job_id}|${st.state}|${st.progress?.stage ?? ''}|${st.progress?.round ?? 0}` : '');
  if (key(prev) === key(next)) return '';
  const f = progressFacts(next, 0);
  return next.state === 'queued' || !next.progress || next.progress.round <= 1 ? `${f.stage}.` : `${f.stage}, round ${next.progress.round}.`;
}

/** Outcome is a finished generation said for people. */
export interface Outcome {
  /** kind is what happened: accepted, failing_tests, cancelled or failed. */
  kind: 'accepted' | 'failing_tests' | 'cancelled' | 'failed';
  /** headline is the first sentence. */
  headline: string;
  /** lines are the facts that follow it. */
  lines: string[];
  failures: Failure[];
  hint: { message: string; actionableVia: string } | null;
}

/** finishedHeading heads a generation's outcome as it ends, by what it came to: a failure never reads as finished. */
export const finishedHeading: Record<Outcome['kind'], string> = {
  accepted: 'The generation has finished',
  failing_tests: 'The generation has finished, with tests failing',
  cancelled: 'The generation was cancelled',
  failed: 'The generation failed',
};

/** outcomeOf says what a finished generation came to, from its result (and its status for a failure or a cancel). */
export function outcomeOf(st: Pick<GenerationStatus, 'outcome' | 'error_detail'> | null, result: GenerationResult | null): Outcome {
  const empty = { lines: [], failures: [], hint: null };
  if (st?.outcome === 'cancelled') {
    return { kind: 'cancelled', headline: 'The generation was cancelled.', ...empty };
  }
  if (!result || st?.outcome === 'failed') {
    const detail = st?.error_detail;
    const why = detail?.message || 'The generation kept no draft.';
    return { kind: 'failed', headline: why, lines: detail?.retryable ? ['Starting it again may work.'] : [], failures: [], hint: null };
  }
  const lines: string[] = [];
  const totals = result.provenance_report?.totals;
  if (totals) {
    lines.push(`Quotes: ${count(totals.verified)} found in the sources, ${count(totals.flagged)} not found, ${count(totals.uncited)} ${totals.uncited === 1 ? 'criterion' : 'criteria'} without a quote.`);
  }
  const rounds = result.rounds?.length ?? 0;
  lines.push(`${rounds ? plural(rounds, 'round') + ', ' : ''}${count(result.tokens_used)} tokens used.`);
  if (result.changed_criteria?.length) lines.push(`Criteria changed: ${result.changed_criteria.join(', ')}.`);
  const tests =
    result.tests_total === 0
      ? 'The project has no tests yet, so none was run.'
      : result.tests_passing === result.tests_total
        ? `All ${plural(result.tests_total, 'test')} pass.`
        : `${result.tests_passing} of ${plural(result.tests_total, 'test')} pass.`;
  const accepted = result.accepted;
  return {
    kind: accepted ? 'accepted' : 'failing_tests',
    headline: accepted ? `The new draft is ready. ${tests}` : `The new draft is saved but not yet right. ${tests}`,
    lines,
    failures: result.failures ?? [],
    hint: result.review_hint ? { message: result.review_hint.message, actionableVia: result.review_hint.actionable_via } : null,
  };
}

/** OverBudget is a refusal of a prompt larger than the model's budget. */
export interface OverBudget {
  count: number;
  budget: number;
  largest: Array<{ filename: string; tokens: number }>;
}

/** overBudget reads a token_budget_exceeded refusal's body; null for any other. */
export function overBudget(body: unknown): OverBudget | null {
  const d = (body as { detail?: Record<string, unknown> } | null)?.detail;
  if (!d || d.reason_code !== 'token_budget_exceeded') return null;
  const largest = Array.isArray(d.largest_sources) ? (d.largest_sources as Array<Record<string, unknown>>) : [];
  return {
    count: Number(d.token_count) || 0,
    budget: Number(d.token_budget) || 0,
    largest: largest.map((s) => ({ filename: String(s.filename ?? ''), tokens: Number(s.estimated_tokens) || 0 })),
  };
}

/** overBudgetWords explains an over-budget refusal and what to do about it. */
export function overBudgetWords(o: OverBudget): { headline: string; sources: string[]; advice: string } {
  return {
    headline: `The prompt is too large for this model: it counts at least ${count(o.count)} tokens, and the model takes at most ${count(o.budget)}. Nothing was sent to the model.`,
    sources: o.largest.map((s) => `${s.filename}: ${count(s.tokens)} tokens`),
    advice: 'Mark the largest sources “Reference only” on the Sources screen (they stay in the project but leave the prompt), split the project, or choose a model with a larger budget.',
  };
}

/** settledPrefix begins the guidance note that settles question q. */
function settledPrefix(q: Pick<SourceQuestion, 'quote' | 'question'>): string {
  return `Settled source question: “${q.quote}” (${q.question.trim()}) Read it as: `;
}

/** settleText is the guidance note that settles q with reading. */
export function settleText(q: Pick<SourceQuestion, 'quote' | 'question'>, reading: string): string {
  return settledPrefix(q) + reading.trim();
}

/**
 * settledReading is the reading the team settled q with, from the
 * project's rule-generation guidance (the latest note wins); null when
 * no note settles it.
 */
export function settledReading(q: Pick<SourceQuestion, 'quote' | 'question'>, guidance: ReadonlyArray<Pick<Guidance, 'guidance_text' | 'process_type'>>): string | null {
  const prefix = settledPrefix(q);
  let found: string | null = null;
  for (const g of guidance) {
    if (g.process_type === 'rule_generation' && g.guidance_text.startsWith(prefix)) found = g.guidance_text.slice(prefix.length);
  }
  return found;
}
