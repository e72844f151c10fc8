// The rulebook screens' rules, without the DOM: what a name and a slug
// must look like, the sections people can pick (the tenant's published
// rulesets, one entry per section id), the request bodies for the API,
// what changed in the field overlay, and the presence-polarity gate's
// refusal said in words.
import { formatDate } from '../answers.js';
import { toApi } from './outcometree.js';
/** The API's slug pattern: lower-case words joined by "/" (catalog/slug.go). */
const slugPattern = /^[a-z][a-z0-9-]*(\/[a-z][a-z0-9-]*)*$/;
/** The most sections a rulebook composes (rulebook.MaxSections: A to Z). */
export const maxSections = 26;
/** validateRulebookForm says, part by part, what must change before the rulebook can be saved. */
export function validateRulebookForm(f, creating) {
    const errors = {};
    const name = f.name.trim();
    if (!name)
        errors.name = 'Give the rulebook a name.';
    else if (name.length > 200)
        errors.name = 'The name is too long: at most 200 characters.';
    if (creating) {
        const slug = f.slug.trim();
        if (!slug)
            errors.slug = 'Give the rulebook’s address, for example “acme/benefits”.';
        else if (!slugPattern.test(slug) || !slug.includes('/'))
            errors.slug = 'Use lower-case letters, digits and hyphens, each part starting with a letter, at least two parts joined by “/”.';
    }
    if (f.description.length > 4000)
        errors.description = 'The description is too long: at most 4,000 characters.';
    if (new Set(f.sections).size !== f.sections.length)
        errors.sections = 'Each section can be picked once.';
    else if (f.sections.length > maxSections)
        errors.sections = `A rulebook combines at most ${maxSections} sections.`;
    return errors;
}
/**
 * sectionChoices turns the published rulesets into one choice per section
 * id (a section may be published under several addresses), in name order,
 * archived cuts left out.
 */
export function sectionChoices(rulesets) {
    const by = new Map();
    for (const r of rulesets) {
        if (r.status === 'archived')
            continue;
        by.set(r.section_id, [...(by.get(r.section_id) ?? []), r]);
    }
    const choices = [...by.entries()].map(([sectionId, rs]) => {
        const first = rs[0];
        const where = rs.map((r) => r.slug).join(', ');
        return { sectionId, name: first.name, label: `${first.name} (${where})` };
    });
    return choices.sort((a, b) => a.label.localeCompare(b.label));
}
/** sectionLabel names a picked section: its choice's label when it is published, else its id. */
export function sectionLabel(sectionId, choices) {
    return choices.find((c) => c.sectionId === sectionId)?.label ?? sectionId;
}
/** sectionName is a picked section's short name, for the outcome tree: its name when it is published, else its id. */
export function sectionName(sectionId, choices) {
    return choices.find((c) => c.sectionId === sectionId)?.name ?? sectionId;
}
/**
 * rulebookBody is what to send. A section the rulebook already has keeps
 * its reference as it is (a pinned one its exact cut, since a promoted
 * rulebook refuses a floating reference); a new section floats on its
 * newest published cut.
 */
export function rulebookBody(f, tree, current) {
    const body = {
        name: f.name.trim(),
        description: f.description.trim(),
        ruleset_refs: f.sections.map((sectionId) => {
            const had = current?.find((r) => r.section_id === sectionId);
            return had?.pin_mode === 'pinned' ? { section_id: sectionId, pin_mode: 'pinned', ruleset_id: had.ruleset_id } : { section_id: sectionId };
        }),
        outcome_logic: toApi(tree),
    };
    if (!current)
        body.slug = f.slug.trim();
    return body;
}
/** moves says where each old section went when the list changed: the new index, or null when removed. */
export function moves(before, after) {
    return before.map((s) => {
        const i = after.indexOf(s);
        return i < 0 ? null : i;
    });
}
/**
 * overlayChanges is POST .../fields's body: for each field whose edit
 * differs from the stored overlay, its new entry, or null to remove it
 * when every box is empty. Blank boxes leave the section's own wording.
 * A weight that is not a whole number from 0 to 1,000,000 is an error.
 */
export function overlayChanges(stored, edits) {
    const fields = {};
    const errors = {};
    for (const [id, e] of Object.entries(edits)) {
        const entry = {};
        if (e.question.trim())
            entry.question = e.question.trim();
        if (e.description.trim())
            entry.description = e.description.trim();
        if (e.weight.trim()) {
            const w = Number(e.weight.trim());
            if (!Number.isInteger(w) || w < 0 || w > 1_000_000) {
                errors[id] = 'The weight is a whole number from 0 to 1,000,000.';
                continue;
            }
            entry.weight = w;
        }
        const had = stored[id];
        if (had?.notes)
            entry.notes = had.notes;
        const empty = entry.question === undefined && entry.description === undefined && entry.weight === undefined && !entry.notes;
        if (empty) {
            if (had)
                fields[id] = null;
            continue;
        }
        if (!had || had.question !== entry.question || had.description !== entry.description || had.weight !== entry.weight)
            fields[id] = entry;
    }
    return { fields, errors };
}
/** statusWords says a criterion's or an outcome's status as people read it. */
export function statusWords(status) {
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
export function valueWords(v) {
    if (v === true)
        return 'yes';
    if (v === false)
        return 'no';
    if (typeof v === 'string')
        return `“${v}”`;
    return String(v);
}
/**
 * witnessSentences says the gate's refusal in words: which field and
 * which criterion, the example the gate checked (the other answers, then
 * the field unanswered against answered), and the gate's own message.
 */
export function witnessSentences(r, fieldLabel = (id) => id) {
    const out = [];
    const where = r.criterion ? `criterion “${r.criterion}”` : 'the outcome';
    out.push(`Field: ${fieldLabel(r.field)}. Criterion: ${r.criterion || 'the outcome as a whole'}.`);
    const w = r.witness;
    if (w) {
        const others = (w.other_answers ?? []).map((a) => `${fieldLabel(a.field)} is ${valueWords(a.value)}`);
        const given = others.length ? `With ${list(others)}` : 'With no other answers';
        const date = w.decision_date ? `, on ${w.decision_date}` : '';
        out.push(`${given}${date}: leaving ${fieldLabel(r.field)} unanswered makes ${where} ${statusWords(w.unanswered)}, ` +
            `but answering ${valueWords(w.value)} makes it ${statusWords(w.answered)}.`);
    }
    if (r.message)
        out.push(r.message);
    return out;
}
function list(items) {
    if (items.length <= 1)
        return items.join('');
    return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
/** releaseName says a release as people read it: “Version 2, “quiet-harbor””. */
export function releaseName(r) {
    return `Version ${r.version}, “${r.label}”`;
}
/**
 * versionWords says a ruleset version as a policy analyst reads it: a
 * version the studio named by its publication date (20261129-d12ad59a6881)
 * as “version of 29 November 2026”, v3 as “version 3”, any other name as
 * it is.
 */
export function versionWords(version) {
    const dated = /^(\d{4})(\d{2})(\d{2})-/.exec(version);
    if (dated) {
        const day = formatDate(`${dated[1]}-${dated[2]}-${dated[3]}`);
        if (day !== `${dated[1]}-${dated[2]}-${dated[3]}`)
            return `version of ${day}`;
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
export function sectionInForce(letter, name, version, rulesetId) {
    const v = version || rulesetId.slice(rulesetId.lastIndexOf(':') + 1);
    return `Section ${letter}: ${name}, in force: ${versionWords(v)}`;
}
/** statusText says a rulebook's state in words. */
export function statusText(status) {
    return { draft: 'Draft: not released yet', active: 'Active', archived: 'Archived' }[status] ?? status;
}
