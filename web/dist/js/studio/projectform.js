// The new-project form's rules: what a name, a slug and a section id must
// look like, said in words before anything is sent, and the starter draft
// that records the slug the project publishes under (the API keeps the
// slug in the draft's `ruleset` line, not on the project).
import { ruleString } from './rulestext.js';
/** The API's slug pattern: lower-case words joined by "/" (catalog/slug.go). */
const slugPattern = /^[a-z][a-z0-9-]*(\/[a-z][a-z0-9-]*)*$/;
/** The rules language's identifiers (engine/syntax/GRAMMAR.md). */
const identPattern = /^[a-z][a-z0-9_]*$/;
/** validateProjectForm says, field by field, what must change before the project can be created. */
export function validateProjectForm(f) {
    const errors = {};
    if (!f.name.trim())
        errors.name = 'Give the project a name.';
    else if (f.name.trim().length > 200)
        errors.name = 'The name is too long: at most 200 characters.';
    const slug = f.slug.trim();
    if (!slug)
        errors.slug = 'Give the address to publish under, for example “acme/leave-eligibility”.';
    else if (!slugPattern.test(slug))
        errors.slug = 'Use lower-case letters, digits and hyphens, each part starting with a letter, parts joined by “/”.';
    const section = f.sectionId.trim();
    if (!section)
        errors.sectionId = 'Give the section an id, for example “leave_eligibility”.';
    else if (!identPattern.test(section))
        errors.sectionId = 'Use lower-case letters, digits and underscores, starting with a letter.';
    return errors;
}
/** sectionFromSlug suggests a section id from the slug's last part ("acme/fmla-leave" gives "fmla_leave"). */
export function sectionFromSlug(slug) {
    const last = slug.trim().split('/').pop() ?? '';
    const id = last.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^[^a-z]+/, '').replace(/_+$/, '');
    return id;
}
/** quoted writes one line of text as a rules-language string (strings may not span lines). */
function quoted(text) {
    return ruleString(text.replace(/[\r\n]+/g, ' '));
}
/** starterDraft is a new project's first draft: its header, for the author to go on from. */
export function starterDraft(f) {
    return `ruleset ${quoted(f.slug.trim())}\nsection ${f.sectionId.trim()}\nname ${quoted(f.name.trim())}\n`;
}
/** draftSlug reads the slug a draft publishes under from its `ruleset "..."` line, or "". */
export function draftSlug(rules) {
    const m = /^[ \t]*ruleset[ \t]+"((?:[^"\\]|\\.)*)"/m.exec(rules);
    return m?.[1] ?? '';
}
