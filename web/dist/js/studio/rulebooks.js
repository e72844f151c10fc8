// The rulebook screens: the tenant's rulebooks and the form that creates
// one (#/studio/rulebooks), and one rulebook (#/studio/rulebooks/<id>):
// its sections and outcome tree, the field wording it overrides,
// activating a release, promoting a section's newer version (with the
// presence-polarity gate's refusal said in words), the release history,
// visibility and archiving, and the applicant interview on it.
import { announce, h } from '../dom.js';
import { newIdempotencyKey, StudioError } from './client.js';
import { whomItAffects } from './draftdiff.js';
import { fromApi, letterOf, relabel } from './outcometree.js';
import { maxSections, moves, overlayChanges, releaseName, rulebookBody, sectionChoices, sectionInForce, sectionLabel, sectionName, statusText, validateRulebookForm, witnessSentences, } from './rulebookform.js';
import { promoteImpact } from './promoteimpact.js';
import { studioHref } from './routes.js';
import { treeEditor } from './treeview.js';
import { alertBox, busy, confirmDialog, errorMessage, field, plural, when } from './ui.js';
/** The most rulebooks, rulesets and releases read: one page of the API's. */
const page = 100;
/** rulebookPath is a rulebook's API path, rest appended. */
function rulebookPath(id, rest = '') {
    return `/rulebooks/${encodeURIComponent(id)}${rest}`;
}
/** rulebookInterviewHref is the console's applicant interview on a rulebook. */
export function rulebookInterviewHref(rulebookId) {
    return '#/rulebook/' + encodeURIComponent(rulebookId);
}
/** loadRulesets reads the signed-in team’s own published rulesets: the sections its rulebooks can compose. */
async function loadRulesets(client) {
    return client.call('GET', `/rulesets?own=true&limit=${page}`);
}
/** rulebooksView draws the rulebook list and the create form into container. */
export async function rulebooksView(client, container) {
    const list = h('ul', { class: 'catalogue', id: 'rulebooks' });
    const count = h('p', { class: 'count', id: 'rulebooks-count' }, 'Loading the rulebooks…');
    const alert = alertBox('rulebooks-error');
    const formSlot = h('div', {});
    container.append(h('h2', { tabindex: '-1' }, 'Your rulebooks'), h('p', { class: 'hint' }, 'A rulebook combines published rulesets, its sections, under one outcome, and is released as a whole.'), count, alert.el, list, formSlot);
    try {
        const [rulebooks, rulesets] = await Promise.all([client.call('GET', `/rulebooks/?limit=${page}`), loadRulesets(client)]);
        count.textContent = rulebooks.length ? plural(rulebooks.length, 'rulebook') : 'No rulebooks yet: create the first one below.';
        list.replaceChildren(...rulebooks.map(rulebookCard));
        formSlot.replaceChildren(createForm(client, sectionChoices(rulesets)));
    }
    catch (err) {
        count.textContent = 'The rulebooks could not be loaded.';
        alert.show(errorMessage(err));
    }
}
function rulebookCard(rb) {
    return h('li', {}, h('article', { class: 'card' }, h('h3', {}, h('a', { href: studioHref({ kind: 'rulebook', rulebookId: rb.rulebook_id }) }, rb.name)), h('dl', { class: 'facts' }, h('div', {}, h('dt', {}, 'Address'), h('dd', {}, h('code', {}, rb.slug))), h('div', {}, h('dt', {}, 'Status'), h('dd', {}, statusText(rb.status))), h('div', {}, h('dt', {}, 'Visibility'), h('dd', {}, rb.visibility === 'public' ? 'Public' : 'Private to your team')), h('div', {}, h('dt', {}, 'Release'), h('dd', {}, rb.release ? releaseName(rb.release) : 'None yet')), h('div', {}, h('dt', {}, 'Sections'), h('dd', {}, String(rb.ruleset_refs.length))))));
}
/** composition draws the sections picker (ordered, A, B, C...) and the tree editor over them. */
function composition(prefix, choices, initial, initialTree, locked) {
    let sections = initial.slice();
    const names = () => sections.map((s) => sectionName(s, choices));
    const editor = treeEditor(initialTree, names());
    const listEl = h('ol', { id: `${prefix}-sections`, class: 'sections' });
    const error = h('p', { class: 'field-error', id: `${prefix}-sections-error`, hidden: true });
    const pick = h('select', { id: `${prefix}-section-pick`, 'aria-describedby': `${prefix}-sections-hint` }, h('option', { value: '' }, choices.length ? 'Choose a published ruleset…' : 'No published rulesets yet'), ...choices.map((c) => h('option', { value: c.sectionId }, c.label)));
    const add = h('button', { type: 'button', class: 'secondary', id: `${prefix}-add-section` }, 'Add the section');
    const setSections = (next, focus, said) => {
        let tree = relabel(editor.tree(), moves(sections, next));
        const grew = next.length > sections.length;
        sections = next;
        // A new section joins the outcome under the top “all of”, as the API's default would.
        if (grew) {
            const leaf = { kind: 'section', letter: letterOf(sections.length - 1) };
            tree = !tree ? fromApi(null, sections.length) : tree.kind === 'and' ? { kind: 'and', args: [...tree.args, leaf] } : { kind: 'and', args: [tree, leaf] };
        }
        editor.setSections(names(), tree);
        drawList();
        announce(said);
        if (focus)
            (listEl.querySelector(focus) ?? pick).focus();
    };
    const drawList = () => {
        listEl.replaceChildren(...sections.map((s, i) => {
            const letter = String.fromCharCode(65 + i);
            const label = sectionLabel(s, choices);
            const controls = [];
            if (!locked) {
                if (i > 0)
                    controls.push(h('button', { type: 'button', class: 'secondary small', id: `${prefix}-up-${i}`, onclick: () => {
                            const next = sections.slice();
                            [next[i - 1], next[i]] = [next[i], next[i - 1]];
                            setSections(next, `#${prefix}-up-${i - 1}`, `${label} moved up: it is section ${String.fromCharCode(64 + i)} now.`);
                        } }, 'Move up', h('span', { class: 'visually-hidden' }, ' ' + label)));
                controls.push(h('button', { type: 'button', class: 'secondary small', id: `${prefix}-drop-${i}`, onclick: () => {
                        setSections(sections.filter((_, j) => j !== i), null, `${label} removed; the outcome no longer mentions it.`);
                        pick.focus();
                    } }, 'Remove', h('span', { class: 'visually-hidden' }, ' ' + label)));
            }
            return h('li', { class: 'section-ref' }, h('span', {}, h('strong', {}, `${letter}: `), label), ...controls);
        }));
        pick.disabled = locked || sections.length >= maxSections;
        add.disabled = pick.disabled;
    };
    add.addEventListener('click', () => {
        const s = pick.value;
        if (!s) {
            error.textContent = 'Choose a published ruleset to add.';
            error.hidden = false;
            pick.focus();
            return;
        }
        error.hidden = true;
        if (sections.includes(s)) {
            error.textContent = 'That section is in the rulebook already.';
            error.hidden = false;
            pick.focus();
            return;
        }
        pick.value = '';
        setSections([...sections, s], null, `${sectionLabel(s, choices)} added as section ${String.fromCharCode(65 + sections.length)}.`);
        pick.focus();
    });
    drawList();
    const el = h('div', { class: 'composition' }, h('fieldset', { class: 'sections-picker' }, h('legend', {}, 'Sections'), h('p', { class: 'hint', id: `${prefix}-sections-hint` }, locked
        ? 'This rulebook’s sections are pinned by a promotion; a section’s newer version goes live by promoting it below.'
        : 'Pick your team’s published rulesets; each becomes a section, lettered A, B, C… in this order, on its newest published version.'), listEl, locked ? null : h('div', { class: 'inline' }, h('label', { for: `${prefix}-section-pick` }, 'Add a section'), pick, add), error), editor.el);
    return {
        el,
        sections: () => sections,
        tree: () => editor.tree(),
        problems: () => editor.problems(),
        setError(text) {
            error.textContent = text;
            error.hidden = !text;
        },
    };
}
/** formFields are the name, address and description controls of the create and edit forms. */
function formFields(prefix, rb) {
    const name = field(`${prefix}-name`, 'Name', h('input', { type: 'text', class: 'wide', autocomplete: 'off', value: rb?.name ?? '' }), 'What the rulebook decides, as applicants would say it.');
    const slug = field(`${prefix}-slug`, 'Address', h('input', { type: 'text', class: 'wide', autocomplete: 'off', spellcheck: 'false', value: rb?.slug ?? '', readonly: rb !== null }), rb ? 'The address cannot change.' : 'For example “acme/benefits”: lower-case words joined by “/”.');
    const description = field(`${prefix}-description`, 'Description (optional)', h('textarea', { rows: '3', class: 'wide' }), 'What it covers, for your team and for applicants.');
    description.control.value = rb?.description ?? '';
    return { name, slug, description };
}
/**
 * submitRulebook checks the form, shows what is wrong beside each part
 * (focusing the first), and otherwise sends it: POST when creating, PATCH
 * when editing. It answers the saved rulebook, or null when nothing was sent
 * or the API refused (the refusal is shown in alert).
 */
async function submitRulebook(client, parts, comp, alert, rb) {
    alert.clear();
    const values = { name: parts.name.control.value, slug: parts.slug.control.value, description: parts.description.control.value, sections: comp.sections() };
    const errors = validateRulebookForm(values, rb === null);
    parts.name.setError(errors.name ?? '');
    parts.slug.setError(errors.slug ?? '');
    parts.description.setError(errors.description ?? '');
    comp.setError(errors.sections ?? '');
    const problems = comp.problems();
    const firstBad = errors.name ? parts.name.control : errors.slug ? parts.slug.control : errors.description ? parts.description.control : null;
    if (firstBad) {
        firstBad.focus();
        return null;
    }
    if (errors.sections || problems.length) {
        alert.show(errors.sections ?? `The outcome cannot be saved yet: ${problems.join(' ')}`);
        return null;
    }
    const current = rb ? rb.ruleset_refs : null;
    const body = rulebookBody(values, comp.tree(), current);
    try {
        return rb
            ? await client.call('PATCH', rulebookPath(rb.rulebook_id), body)
            : await client.call('POST', '/rulebooks/', body, { 'Idempotency-Key': newIdempotencyKey() });
    }
    catch (err) {
        alert.show(errorMessage(err));
        return null;
    }
}
function createForm(client, choices) {
    const parts = formFields('rulebook', null);
    const comp = composition('new', choices, [], null, false);
    const alert = alertBox('create-rulebook-error');
    const submit = h('button', { type: 'submit', id: 'create-rulebook' }, 'Create the rulebook');
    return h('form', {
        id: 'create-rulebook-form',
        class: 'studio-form',
        'aria-labelledby': 'create-rulebook-heading',
        onsubmit: (e) => {
            e.preventDefault();
            void busy(submit, async () => {
                const rb = await submitRulebook(client, parts, comp, alert, null);
                if (!rb)
                    return;
                announce(`Rulebook ${rb.name} created as a draft.`);
                window.location.hash = studioHref({ kind: 'rulebook', rulebookId: rb.rulebook_id });
            });
        },
    }, h('h2', { id: 'create-rulebook-heading' }, 'Create a rulebook'), parts.name.row, parts.slug.row, parts.description.row, comp.el, h('div', { class: 'buttons' }, submit), alert.el);
}
/** rulebookView draws one rulebook's screen into container; heading takes its name. */
export async function rulebookView(client, rulebookId, container, heading) {
    const alert = alertBox('rulebook-error');
    container.replaceChildren(alert.el);
    let rb;
    let rulesets;
    try {
        [rb, rulesets] = await Promise.all([client.call('GET', rulebookPath(rulebookId)), loadRulesets(client)]);
    }
    catch (err) {
        alert.show(errorMessage(err));
        return;
    }
    heading.textContent = rb.name;
    document.title = `${rb.name} · Rulebooks · Eligo studio`;
    const redraw = async (focus, said) => {
        await rulebookView(client, rulebookId, container, heading);
        announce(said);
        container.querySelector(focus)?.focus();
    };
    const choices = sectionChoices(rulesets);
    container.append(summary(rb), releasePanel(client, rb, redraw), editForm(client, rb, choices, redraw), promotePanel(client, rb, rulesets, redraw), fieldsPanel(client, rb), historyPanel(client, rb), statePanel(client, rb, redraw));
}
/** released redraws the screen and says what was released in the release panel's note, focused. */
async function released(redraw, said) {
    await redraw('#activated', said);
    const note = document.getElementById('activated');
    if (note) {
        note.textContent = said;
        note.hidden = false;
        note.focus();
    }
}
function summary(rb) {
    return h('section', { 'aria-labelledby': 'rulebook-summary-heading' }, h('h2', { id: 'rulebook-summary-heading', class: 'visually-hidden' }, 'Summary'), h('dl', { class: 'facts', id: 'rulebook-facts' }, h('div', {}, h('dt', {}, 'Address'), h('dd', {}, h('code', {}, rb.slug))), h('div', {}, h('dt', {}, 'Status'), h('dd', { id: 'rulebook-status' }, statusText(rb.status))), h('div', {}, h('dt', {}, 'Visibility'), h('dd', { id: 'rulebook-visibility' }, rb.visibility === 'public' ? 'Public' : 'Private to your team')), h('div', {}, h('dt', {}, 'Current release'), h('dd', { id: 'rulebook-release' }, rb.release ? releaseName(rb.release) : 'None yet'))), rb.publication_pending ? h('p', { class: 'notice' }, 'A change is saved but not released yet: activate to release it.') : null, h('p', {}, h('a', { href: rulebookInterviewHref(rb.rulebook_id), id: 'rulebook-interview' }, `Interview: try ${rb.name} as an applicant`)));
}
function releasePanel(client, rb, redraw) {
    const alert = alertBox('activate-error');
    const button = h('button', { type: 'button', id: 'activate' }, rb.status === 'archived' ? 'Activate again' : 'Activate: release this version');
    button.addEventListener('click', () => {
        void busy(button, async () => {
            alert.clear();
            try {
                const out = await client.call('POST', rulebookPath(rb.rulebook_id, '/activate'));
                await released(redraw, out.release ? `Released: ${releaseName(out.release)}.` : 'Activated.');
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        });
    });
    return h('section', { class: 'studio-form', 'aria-labelledby': 'release-heading' }, h('h2', { id: 'release-heading' }, 'Release'), h('p', { class: 'hint' }, 'Activating releases what is saved as a numbered version with a permanent two-word label; decisions name it. Releasing the same content again keeps its label.'), h('p', { id: 'activated', class: 'notice', tabindex: '-1', hidden: true }), h('div', { class: 'buttons' }, button), alert.el);
}
function editForm(client, rb, choices, redraw) {
    const parts = formFields('edit', rb);
    let tree = null;
    const alert = alertBox('edit-error');
    try {
        tree = fromApi(rb.outcome_logic, rb.ruleset_refs.length);
    }
    catch (err) {
        alert.show(errorMessage(err));
    }
    const comp = composition('edit', choices, rb.ruleset_refs.map((r) => r.section_id), tree, rb.pinned);
    const submit = h('button', { type: 'submit', id: 'save-rulebook' }, 'Save');
    return h('form', {
        id: 'edit-rulebook-form',
        class: 'studio-form',
        'aria-labelledby': 'edit-heading',
        onsubmit: (e) => {
            e.preventDefault();
            void busy(submit, async () => {
                const out = await submitRulebook(client, parts, comp, alert, rb);
                if (!out)
                    return;
                const said = out.release && out.release.release_id !== rb.release?.release_id ? `Saved and released: ${releaseName(out.release)}.` : 'Saved.';
                await redraw('#save-rulebook', said);
            });
        },
    }, h('h2', { id: 'edit-heading' }, 'Sections and outcome'), rb.status === 'active' ? h('p', { class: 'hint' }, 'This rulebook is released: saving a change releases a new version at once.') : null, parts.name.row, parts.slug.row, parts.description.row, comp.el, h('div', { class: 'buttons' }, submit), alert.el);
}
function promotePanel(client, rb, rulesets, redraw) {
    const alert = alertBox('promote-error');
    const witness = h('section', { id: 'promote-witness', class: 'notice', 'aria-labelledby': 'witness-heading', tabindex: '-1', hidden: true });
    const rows = rb.ruleset_refs.map((ref) => {
        const live = rulesets.find((r) => r.ruleset_id === ref.ruleset_id);
        const candidates = rulesets.filter((r) => r.section_id === ref.section_id && r.ruleset_id !== ref.ruleset_id);
        const id = `promote-${ref.letter}`;
        const select = h('select', { id }, ...candidates.map((c) => h('option', { value: c.ruleset_id }, `${c.name}, ${c.slug} ${c.ruleset_version} (published ${when(c.created_at)})`)));
        const button = h('button', { type: 'button', class: 'secondary', id: `${id}-go` }, 'Promote to live', h('span', { class: 'visually-hidden' }, ` in section ${ref.letter}`));
        button.addEventListener('click', () => {
            void busy(button, async () => {
                alert.clear();
                witness.hidden = true;
                const chosen = candidates.find((c) => c.ruleset_id === select.value);
                if (!chosen)
                    return;
                const ok = await confirmDialog(`Promote ${chosen.name} to live?`, [
                    h('p', {}, `${chosen.slug} ${chosen.ruleset_version} becomes section ${ref.letter}’s live version and a new release is cut.`),
                    h('p', {}, 'The version it replaces is archived, and every section of this rulebook is pinned to its exact version from then on.'),
                ], 'Promote');
                if (!ok)
                    return;
                try {
                    const out = await client.call('POST', rulebookPath(rb.rulebook_id, `/rulesets/${encodeURIComponent(ref.section_id)}/promote-to-live`), { ruleset_id: chosen.ruleset_id });
                    const live = `${chosen.slug} ${chosen.ruleset_version} is live in section ${ref.letter}.`;
                    // Whom it affects, as the solver found against the version it replaced.
                    const affects = out.diff_against_live ? ` Against the version it replaced: ${whomItAffects(out.diff_against_live)}` : '';
                    await released(redraw, (out.release ? `Promoted: ${live} Released: ${releaseName(out.release)}.` : `Promoted: ${live}`) + affects);
                }
                catch (err) {
                    if (err instanceof StudioError && err.reason === 'non_conservative_presence_op') {
                        showWitness(witness, err.body.detail, errorMessage(err));
                    }
                    else {
                        alert.show(errorMessage(err));
                    }
                }
            });
        });
        return h('li', { class: 'promote-row' }, h('p', { title: `${ref.section_id} · ${ref.ruleset_id}` }, h('strong', {}, sectionInForce(ref.letter, live?.name ?? ref.section_id, live?.ruleset_version ?? '', ref.ruleset_id))), candidates.length
            ? h('div', { class: 'inline' }, h('label', { for: id }, `Newer or other version of section ${ref.letter}`), select, button)
            : h('p', { class: 'hint' }, 'No other published version of this section.'));
    });
    return h('section', { class: 'studio-form', 'aria-labelledby': 'promote-heading' }, h('h2', { id: 'promote-heading' }, 'Promote a section’s version to live'), h('p', { class: 'hint' }, 'A section’s version published after it joined the rulebook changes nothing until promoted. Promotion checks the version first: its tests pass, it combines with the other sections, and leaving an answer out never makes an applicant look more eligible.'), rows.length ? h('ul', { class: 'plain', id: 'promote-sections' }, ...rows) : h('p', {}, 'The rulebook has no sections yet.'), alert.el, witness, promoteImpact(client, rb, rulesets));
}
/** showWitness shows the presence-polarity gate's refusal in words. */
function showWitness(el, refusal, message) {
    el.replaceChildren(h('h3', { id: 'witness-heading' }, 'Not promoted: leaving an answer out would make an applicant look more eligible'), h('p', {}, message), h('ul', { id: 'witness-lines' }, ...witnessSentences({ ...refusal, message: '' }).map((s) => h('li', {}, s))), h('p', { class: 'hint' }, 'Fix the version so that an unanswered question never counts in the applicant’s favour, publish it, and promote that.'));
    el.hidden = false;
    el.focus();
}
function fieldsPanel(client, rb) {
    const alert = alertBox('fields-error');
    const body = h('div', { id: 'fields-body' }, h('p', {}, 'Loading the fields…'));
    const section = h('section', { class: 'studio-form', 'aria-labelledby': 'fields-heading' }, h('h2', { id: 'fields-heading' }, 'Field wording'), h('p', { class: 'hint' }, 'Ask a field’s question in this rulebook’s own words. Leave a box empty to keep the section’s wording.'), body, alert.el);
    if (!rb.ruleset_refs.length) {
        body.replaceChildren(h('p', {}, 'Add sections first: their fields are listed here.'));
        return section;
    }
    void (async () => {
        let schema;
        try {
            schema = await client.call('GET', rulebookPath(rb.rulebook_id, '/schema'));
        }
        catch (err) {
            body.replaceChildren();
            alert.show(errorMessage(err));
            return;
        }
        const stored = rb.fields;
        const inputs = schema.fields.map((f, i) => {
            const had = stored[f.field_id];
            const q = field(`overlay-q-${i}`, 'Question', h('input', { type: 'text', class: 'wide', value: had?.question ?? '' }));
            const d = field(`overlay-d-${i}`, 'Description', h('input', { type: 'text', class: 'wide', value: had?.description ?? '' }));
            const w = field(`overlay-w-${i}`, 'Weight (how costly the question is to answer)', h('input', { type: 'text', inputmode: 'numeric', value: had?.weight === undefined ? '' : String(had.weight) }));
            const fs = h('fieldset', { class: 'overlay-field' }, h('legend', {}, f.label || f.field_id), h('p', { class: 'hint' }, `Asked now: ${f.question}`), q.row, d.row, w.row);
            return { id: f.field_id, q, d, w, fs };
        });
        const save = h('button', { type: 'button', id: 'save-fields' }, 'Save the wording');
        save.addEventListener('click', () => {
            void busy(save, async () => {
                alert.clear();
                const edits = {};
                for (const x of inputs)
                    edits[x.id] = { question: x.q.control.value, description: x.d.control.value, weight: x.w.control.value };
                const { fields, errors } = overlayChanges(stored, edits);
                let first = null;
                for (const x of inputs) {
                    x.w.setError(errors[x.id] ?? '');
                    if (errors[x.id] && !first)
                        first = x.w.control;
                }
                if (first) {
                    first.focus();
                    return;
                }
                if (!Object.keys(fields).length) {
                    announce('Nothing changed.');
                    return;
                }
                try {
                    const out = await client.call('POST', rulebookPath(rb.rulebook_id, '/fields'), { fields });
                    Object.assign(stored, out.fields);
                    for (const id of Object.keys(stored))
                        if (!(id in out.fields))
                            delete stored[id];
                    announce(out.release && out.release.release_id !== rb.release?.release_id ? `Wording saved and released: ${releaseName(out.release)}.` : 'Wording saved.');
                }
                catch (err) {
                    alert.show(errorMessage(err));
                }
            });
        });
        body.replaceChildren(...inputs.map((x) => x.fs), h('div', { class: 'buttons' }, save));
    })();
    return section;
}
function historyPanel(client, rb) {
    const alert = alertBox('history-error');
    const body = h('div', { id: 'history-body' }, h('p', {}, 'Loading the releases…'));
    void (async () => {
        try {
            const releases = await client.call('GET', rulebookPath(rb.rulebook_id, `/releases?limit=${page}`));
            if (!releases.length) {
                body.replaceChildren(h('p', {}, 'Nothing released yet: activate to release the first version.'));
                return;
            }
            body.replaceChildren(h('table', { class: 'tests', id: 'releases' }, h('caption', {}, plural(releases.length, 'release'), releases.length === page ? ' (the newest)' : ''), h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Version'), h('th', { scope: 'col' }, 'Label'), h('th', { scope: 'col' }, 'Released'), h('th', { scope: 'col' }, 'Sections'))), h('tbody', {}, ...releases.map((r) => h('tr', {}, h('th', { scope: 'row' }, `Version ${r.version}`, r.current ? h('strong', {}, ' (current)') : null), h('td', {}, r.label), h('td', {}, when(r.published_at)), h('td', {}, h('ul', { class: 'plain' }, ...r.sections.map((s) => h('li', {}, `${s.letter}: ${s.name ?? s.section_id}, ${s.slug} ${s.ruleset_version ?? '(version no longer held)'}`)))))))));
        }
        catch (err) {
            body.replaceChildren();
            alert.show(errorMessage(err));
        }
    })();
    return h('section', { class: 'studio-form', 'aria-labelledby': 'history-heading' }, h('h2', { id: 'history-heading' }, 'Releases'), body, alert.el);
}
function statePanel(client, rb, redraw) {
    const alert = alertBox('state-error');
    const makePublic = rb.visibility !== 'public';
    const visibility = h('button', { type: 'button', class: 'secondary', id: 'toggle-visibility' }, makePublic ? 'Make public' : 'Make private');
    visibility.addEventListener('click', () => {
        void busy(visibility, async () => {
            alert.clear();
            const ok = await confirmDialog(makePublic ? `Make ${rb.name} public?` : `Make ${rb.name} private?`, [
                h('p', { id: 'visibility-meaning' }, makePublic
                    ? 'It is then listed in the public catalogue while it is active, and any team signed in with a key can read its sections’ rules and use it for decisions.'
                    : 'Only your team can then read it and use it; it leaves the public catalogue.'),
                ...(makePublic
                    ? [
                        h('p', { id: 'visibility-applicants' }, 'Applicants who are not signed in see it listed but cannot answer it: the service answers rulebooks only to signed-in teams and programs with a key. To let applicants answer on their own, make its sections’ rulesets public; each can be answered without signing in.'),
                    ]
                    : []),
            ], makePublic ? 'Make public' : 'Make private');
            if (!ok)
                return;
            try {
                await client.call('PATCH', rulebookPath(rb.rulebook_id, '/visibility'), { visibility: makePublic ? 'public' : 'private' });
                await redraw('#toggle-visibility', makePublic ? 'The rulebook is public.' : 'The rulebook is private.');
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        });
    });
    const archive = h('button', { type: 'button', class: 'danger', id: 'archive', hidden: rb.status === 'archived' }, 'Archive');
    archive.addEventListener('click', () => {
        void busy(archive, async () => {
            alert.clear();
            const ok = await confirmDialog(`Archive ${rb.name}?`, [h('p', {}, 'It leaves the public catalogue and refuses changes until activated again. Its releases still answer decisions.')], 'Archive');
            if (!ok)
                return;
            try {
                await client.call('POST', rulebookPath(rb.rulebook_id, '/archive'));
                await redraw('#activate', 'The rulebook is archived.');
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        });
    });
    return h('section', { class: 'studio-form', 'aria-labelledby': 'state-heading' }, h('h2', { id: 'state-heading' }, 'Visibility and archiving'), h('div', { class: 'buttons' }, visibility, archive), alert.el);
}
