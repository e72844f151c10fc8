// The rulebook screens' rules, without the DOM: what a name and a slug
// must look like, the sections people can pick (the tenant's published
// rulesets, one entry per section id), the request bodies for the API,
// what changed in the field overlay, and the presence-polarity gate's
// refusal said in words.

import { formatDate } from '../answers.js';
import { type OutcomeNode, type Tree, toApi } from './outcometree.js';
import type { RulebookRef, RulesetSummary } from './types.js';

/** The API's slug pattern: lower-case words joined by "/" (catalog/slug.go). */
const slugPattern = /^[a-z][a-z0-9-]*(\/[a-z][a-z0-9-]*)*$/;

/** The most sections a rulebook composes (rulebook.MaxSections: A to Z). */
export const maxSections = 26;

/** RulebookForm is what the create and edit form holds. */
export interface RulebookForm {
  name: string;
  slug: string;
  description: string;
  /** sections are the picked section ids, lettered A, B, C... in order. */
  sections: string[];
}

/** RulebookErrors maps a part of the form to what is wrong with it. */
export type RulebookErrors = Partial<Record<'name' | 'slug' | 'description' | 'sections', string>>;

/** validateRulebookForm says, part by part, what must change before the rulebook can be saved. */
export function validateRulebookForm(f: RulebookForm, creating: boolean): RulebookErrors {
  const errors: RulebookErrors = {};
  const name = f.name.trim();
  if (!name) errors.name = 'Give the rulebook a name.';
  else if (name.length > 200) errors.name = 'The name is too long: at most 200 characters.';
  if (creating) {
    const slug = f.slug.trim();
    if (!slug) errors.slug = 'Give the rulebook’s address, for example “acme/benefits”.';
    else if (!slugPattern.test(slug) || !slug.includes('/'))
      errors.slug = 'Use lower-case letters, digits and hyphens, each part starting with a letter, at least two parts joined by “/”.';
  }
  if (f.description.length > 4000) errors.description = 'The description is too long: at most 4,000 characters.';
  if (new Set(f.sections).size !== f.sections.length) errors.sections = 'Each section can be picked once.';
  else if (f.sections.length > maxSections) errors.sections = `A rulebook combines at most ${maxSections} sections.`;
  return errors;
}

/** A published ruleset as GET /rulesets lists it (the members the picker reads). */
export type PublishedRuleset = Pick<RulesetSummary, 'section_id' | 'name' | 'slug' | 'ruleset_version' | 'status'>;

/** SectionChoice is a section people can pick: its id, its name, and how the picker names it (with its addresses). */
export interface SectionChoice {
  sectionId: string;
  name: string;
  label: string;
}

/**
 * sectionChoices turns the published rulesets into one choice per section
 * id (a section may be published under several addresses), in name order,
 * archived cuts left out.
 */
export function sectionChoices(rulesets: PublishedRuleset[]): SectionChoice[] {
  const by = new Map<string, PublishedRuleset[]>();
  for (const r of rulesets) {
    if (r.status === 'archived') continue;
    by.set(r.section_id, [...(by.get(r.section_id) ?? []), r]);
  }
  const choices = [...by.entries()].map(([sectionId, rs]) => {
    const first = rs[0] as PublishedRuleset;
    const where = rs.map((r) => r.slug).join(', ');
    return { sectionId, name: first.name, label: `${first.name} (${where})` };
  });
  return choices.sort((a, b) => a.label.localeCompare(b.label));
}

/** sectionLabel names a picked section: its choice's label when it is published, else its id. */
export function sectionLabel(sectionId: string, choices: SectionChoice[]): string {
  return choices.find((c) => c.sectionId === sectionId)?.label ?? sectionId;
}

/** sectionName is a picked section's short name, for the outcome tree: its name when it is published, else its id. */
export function sectionName(sectionId: string, choices: SectionChoice[]): string {
  return choices.find((c) => c.sectionId === sectionId)?.name ?? sectionId;
}

/** The body of POST /rulebooks/ or PATCH /rulebooks/{id}. */
export interface RulebookBody {
  name: string;
  slug?: string;
  description: string;
  ruleset_refs: Array<{ section_id: string; pin_mode?: 'latest_active' | 'pinned'; ruleset_id?: string }>;
  outcome_logic: OutcomeNode | null;
}

/** The references a rulebook has now, as the API shows them. */
export type CurrentRef = Pick<RulebookRef, 'section_id' | 'pin_mode' | 'ruleset_id'>;

/**
 * rulebookBody is what to send. A section the rulebook already has keeps
 * its reference as it is (a pinned one its exact cut, since a promoted
 * rulebook refuses a floating reference); a new section floats on its
 * newest published cut.
 */
export function rulebookBody(f: RulebookForm, tree: Tree | null, current: CurrentRef[] | null): RulebookBody {
  const body: RulebookBody = {
    name: f.name.trim(),
    description: f.description.trim(),
    ruleset_refs: f.sections.map((sectionId) => {
      const had = current?.find((r) => r.section_id === sectionId);
      return had?.pin_mode === 'pinned' ? { section_id: sectionId, pin_mode: 'pinned', ruleset_id: had.ruleset_id } : { section_id: sectionId };
    }),
    outcome_logic: toApi(tree),
  };
  if (!current) body.slug = f.slug.trim();
  return body;
}

/** moves says where each old section went when the list changed: the new index, or null when removed. */
export function moves(before: string[], after: string[]): Array<number | null> {
  return before.map((s) => {
    const i = after.indexOf(s);
    return i < 0 ? null : i;
  });
}

/** A field's overlay entry (question, description, weight; notes are kept as they are). */
export interface OverlayEntry {
  question?: string;
  description?: string;
  weight?: number;
  notes?: unknown[];
}

/** OverlayEdit is what the overlay form holds for one field: text as typed. */
export interface OverlayEdit {
  question: string;
  description: string;
  weight: string;
}

/**
 * overlayChanges is POST .../fields's body: for each field whose edit
 * differs from the stored overlay, its new entry, or null to remove it
 * when every box is empty. Blank boxes leave the section's own wording.
 * A weight that is not a whole number from 0 to 1,000,000 is an error.
 */
export function overlayChanges(
  stored: Record<string, OverlayEntry>,
  edits: Record<string, OverlayEdit>,
): { fields: Record<string, OverlayEntry | null>; errors: Record<string, string> } {
  const fields: Record<string, OverlayEntry | null> = {};
  const errors: Record<string, string> = {};
  for (const [id, e] of Object.entries(edits)) {
    const entry: OverlayEntry = {};
    if (e.question.trim()) entry.question = e.question.trim();
    if (e.description.trim()) entry.description = e.description.trim();
    if (e.weight.trim()) {
      const w = Number(e.weight.trim());
      if (!Number.isInteger(w) || w < 0 || w > 1_000_000) {
        errors[id] = 'The weight is a whole number from 0 to 1,000,000.';
        continue;
      }
      entry.weight = w;
    }
    const had = stored[id];
    if (had?.notes) entry.notes = had.notes;
    const empty = entry.question === undefined && entry.description === undefined && entry.weight === undefined && !entry.notes;
    if (empty) {
      if (had) fields[id] = null;
      continue;
    }
    if (!had || had.question !== entry.question || had.description !== entry.description || had.weight !== entry.weight) fields[id] = entry;
  }
  return { fields, errors };
}

/** The presence-polarity gate's refusal (422 non_conservative_presence_op), as the studio reads it. */
export interface PolarityRefusal {
  field: string;
  criterion: string;
  message: string;
  witness: {
    other_answers?: Array<{ field: string; value: unknown }>;
    decision_date?: string;
    field?: string;
    unanswered?: string;
    value?: unknown;
    answered?: string;
  } | null;
}

/** statusWords says a criterion's or an outcome's status as people read it. */
export function statusWords(status: string | undefined): string {
  switch (status) {
    case 'satisfied':
      return 'met';
    case 'not_satisfied':
      return 'not met';
    case 'eligible':
      return 'eligible';
    case 'not_eligible':
      return 'not eligible';
    case 'undetermined':
      return 'undetermined';
    default:
      return status ?? '';
  }
}

/** valueWords writes an answer: text as it is, yes/no for true/false, numbers as numbers. */
export function valueWords(v: unknown): string {
  if (v === true) return 'yes';
  if (v === false) return 'no';
  if (typeof v === 'string') return `“${v}”`;
  return String(v);
}

/**
 * witnessSentences says the gate's refusal in words: which field and
 * which criterion, the example the gate checked (the other answers, then
 * the field unanswered against answered), and the gate's own message.
 */
export function witnessSentences(r: PolarityRefusal, fieldLabel: (id: string) => string = (id) => id): string[] {
  const out: string[] = [];
  const where = r.criterion ? `criterion “${r.criterion}”` : 'the outcome';
  out.push(`Field: ${fieldLabel(r.field)}. Criterion: ${r.criterion || 'the outcome as a whole'}.`);
  const w = r.witness;
  if (w) {
    const others = (w.other_answers ?? []).map((a) => `${fieldLabel(a.field)} is ${valueWords(a.value)}`);
    const given = others.length ? `With ${list(others)}` : 'With no other answers';
    const date = w.decision_date ? `, on ${w.decision_date}` : '';
    out.push(
      `${given}${date}: leaving ${fieldLabel(r.field)} unanswered makes ${where} ${statusWords(w.unanswered)}, ` +
        `but answering ${valueWords(w.value)} makes it ${statusWords(w.answered)}.`,
    );
  }
  if (r.message) out.push(r.message);
  return out;
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** releaseName says a release as people read it: “Version 2, “quiet-harbor””. */
export function releaseName(r: { version: number; label: string }): string {
  return `Version ${r.version}, “${r.label}”`;
}

/**
 * versionWords says a ruleset version as a policy analyst reads it: a
 * version the studio named by its publication date (20261129-d12ad59a6881)
 * as “version of 29 November 2026”, v3 as “version 3”, any other name as
 * it is.
 */
export function versionWords(version: string): string {
  const dated = /^(\d{4})(\d{2})(\d{2})-/.exec(version);
  if (dated) {
    const day = formatDate(`${dated[1]}-${dated[2]}-${dated[3]}`);
    if (day !== `${dated[1]}-${dated[2]}-${dated[3]}`) return `version of ${day}`;
  }
  const numbered = /^v(\d+)$/.exec(version);
  return numbered ? `version ${numbered[1]}` : `version ${version}`;
}

/**
 * sectionInForce says which version of a rulebook's section is in force:
 * “Section A: Lifeline, in force: version of 29 November 2026”. Without
 * the published ruleset at hand, the version is read from the live
 * ruleset id (section:version); the ids themselves are for a title
 * attribute, not for this line.
 */
export function sectionInForce(letter: string, name: string, version: string, rulesetId: string): string {
  const v = version || rulesetId.slice(rulesetId.lastIndexOf(':') + 1);
  return `Section ${letter}: ${name}, in force: ${versionWords(v)}`;
}

/** statusText says a rulebook's state in words. */
export function statusText(status: string): string {
  return { draft: 'Draft: not released yet', active: 'Active', archived: 'Archived' }[status] ?? status;
}
