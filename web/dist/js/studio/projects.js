// The project list: the tenant's authoring projects, and the form that
// creates one (its name, the address it publishes under, its section id,
// and optionally the statute text to start from).
import { announce, h } from '../dom.js';
import { newIdempotencyKey } from './client.js';
import { sectionFromSlug, starterDraft, validateProjectForm } from './projectform.js';
import { studioHref } from './routes.js';
import { alertBox, busy, errorMessage, field, plural, when } from './ui.js';
/** The most projects listed: one page of the API's. */
const listed = 100;
/** listProjects reads the tenant's first projects, in creation order (a page of the API's). */
async function listProjects(client) {
    return client.call('GET', `/projects?limit=${listed}`);
}
/** projectsView draws the project list and the create form into container. */
export async function projectsView(client, container) {
    const list = h('ul', { class: 'catalogue', id: 'projects' });
    const count = h('p', { class: 'count', id: 'projects-count' }, 'Loading the projects…');
    const alert = alertBox('projects-error');
    container.append(h('h2', {}, 'Your projects'), count, alert.el, list, createForm(client));
    try {
        const projects = await listProjects(client);
        count.textContent = projects.length
            ? projects.length === listed
                ? `The first ${listed} projects`
                : plural(projects.length, 'project')
            : 'No projects yet: create the first one below.';
        list.replaceChildren(...projects.map(projectCard));
    }
    catch (err) {
        count.textContent = 'The projects could not be loaded.';
        alert.show(errorMessage(err));
    }
}
function projectCard(p) {
    return h('li', {}, h('article', { class: 'card' }, h('h3', {}, h('a', { href: studioHref({ kind: 'project', projectId: p.project_id, screen: 'draft' }) }, p.name)), h('dl', { class: 'facts' }, h('div', {}, h('dt', {}, 'Section'), h('dd', {}, h('code', {}, p.section_id))), h('div', {}, h('dt', {}, 'Tests'), h('dd', {}, String(p.tests_total))), h('div', {}, h('dt', {}, 'Rules'), h('dd', {}, p.draft ? `changed ${when(p.draft.updated_at)}` : 'not written yet')))));
}
function createForm(client) {
    const name = field('project-name', 'Name', h('input', { type: 'text', class: 'wide', autocomplete: 'off' }), 'What the ruleset decides, as applicants would say it.');
    const slug = field('project-slug', 'Publish under', h('input', { type: 'text', class: 'wide', autocomplete: 'off', spellcheck: 'false' }), 'The ruleset’s address, for example “acme/leave-eligibility”: lower-case words joined by “/”.');
    const section = field('project-section', 'Section id', h('input', { type: 'text', class: 'wide', autocomplete: 'off', spellcheck: 'false' }), 'The section of law the rules cover, as an id: lower-case letters, digits and underscores.');
    const source = field('project-source', 'Statute text (optional)', h('textarea', { rows: '6', class: 'wide' }), 'Paste the text of the law to start from; you can also upload files on the Sources screen.');
    let sectionTouched = false;
    section.control.addEventListener('input', () => (sectionTouched = true));
    slug.control.addEventListener('input', () => {
        if (!sectionTouched)
            section.control.value = sectionFromSlug(slug.control.value);
    });
    const alert = alertBox('create-error');
    const submit = h('button', { type: 'submit', id: 'create-project' }, 'Create the project');
    const fields = [
        ['name', name],
        ['slug', slug],
        ['sectionId', section],
    ];
    const form = h('form', {
        id: 'create-project-form',
        class: 'studio-form',
        'aria-labelledby': 'create-heading',
        onsubmit: (e) => {
            e.preventDefault();
            alert.clear();
            const values = { name: name.control.value, slug: slug.control.value, sectionId: section.control.value, sourceText: source.control.value };
            const errors = validateProjectForm(values);
            for (const [k, f] of fields)
                f.setError(errors[k] ?? '');
            const first = fields.find(([k]) => errors[k]);
            if (first) {
                first[1].control.focus();
                return;
            }
            void busy(submit, async () => {
                try {
                    const created = await client.call('POST', '/projects/', { name: values.name.trim(), section_id: values.sectionId.trim(), source_text: values.sourceText, test_cases: [] }, { 'Idempotency-Key': newIdempotencyKey() });
                    await client.call('PUT', `/projects/${encodeURIComponent(created.project_id)}/draft`, { rules: starterDraft(values) });
                    announce(`Project ${created.name} created.`);
                    window.location.hash = studioHref({ kind: 'project', projectId: created.project_id, screen: values.sourceText.trim() ? 'draft' : 'sources' });
                }
                catch (err) {
                    alert.show(errorMessage(err));
                }
            });
        },
    }, h('h2', { id: 'create-heading' }, 'Create a project'), name.row, slug.row, section.row, source.row, h('div', { class: 'buttons' }, submit), alert.el);
    return form;
}
