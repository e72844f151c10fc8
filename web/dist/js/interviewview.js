// The guided interview on one ruleset or rulebook: one question at a time
// in the order /decide's next_question gives, progress against
// optimal_path, a household person by person (householdview.ts), skip
// and back, the decision as soon as it is settled (as
// of today or of another date), what-if, and the graph. Signed in, it goes
// through the console session, so a tenant's private rulesets and its
// rulebooks answer too.
import { acceptedAnswers, answerText, decideBody, decideTarget, encodeAnswer, fieldLabel, fieldValuesText, formatDate, knownValues, progress, notesOf, } from './answers.js';
import { Api } from './api.js';
import { targetHref } from './catalogue.js';
import { control, labelOf } from './controls.js';
import { computedValues, envelopeBox, explanation, outcomeWords, outsidePeriod, outsidePeriodWarning, reasons, sectionResults } from './decisionview.js';
import { announce, h } from './dom.js';
import { auditEnvelope } from './envelope.js';
import { drawGraph, legend, zoomControls } from './graphview.js';
import { countOf, inHousehold, listOfField, listsOf, memberFieldId, personName, whoIs, withoutPerson, withPeople, renumberMap } from './household.js';
import { householdForm } from './householdview.js';
import { Interview, nextStep } from './interview.js';
import { withFieldLabels, withOverlay } from './overlay.js';
import { currentSession, knownSession } from './transport.js';
/**
 * showInterview draws the interview on target: a ruleset by slug or id, or
 * a rulebook by id or slug. Signed in, it asks through the session; a
 * rulebook needs it (the API answers rulebooks to keys only).
 */
export async function showInterview(main, target) {
    main.replaceChildren(h('h1', { tabindex: '-1' }, 'Loading…'));
    const what = target.kind === 'rulebook' ? 'rulebook' : 'ruleset';
    // A session this page has seen is used at once. Otherwise a ruleset is
    // read anonymously first, and the server is asked whether a session
    // exists (the cookie outlives a reload) only when that fails or for a
    // rulebook, which the API answers to keys only.
    let signedIn = knownSession();
    let schema;
    let problem;
    if (!signedIn && target.kind === 'ruleset') {
        try {
            schema = await new Api(false).schema(target);
        }
        catch (err) {
            problem = err;
        }
    }
    if (!signedIn && !schema) {
        try {
            signedIn = (await currentSession()) !== null;
        }
        catch {
            signedIn = false;
        }
    }
    if (target.kind === 'rulebook' && !signedIn) {
        main.replaceChildren(h('h1', { tabindex: '-1' }, 'Sign in to answer this rulebook'), h('p', { id: 'rulebook-sign-in' }, 'Rulebooks combine several rulesets into one interview. A public rulebook is listed in the catalogue for everyone, but the service answers rulebooks only to signed-in teams and programs with a key. ', h('a', { href: '#/sign-in' }, 'Sign in'), ', then come back to this page.'), h('p', {}, h('a', { href: '#/' }, 'Back to all rulesets')));
        return;
    }
    const client = new Api(signedIn);
    try {
        if (!schema && signedIn)
            schema = await client.schema(target);
    }
    catch (err) {
        problem = err;
    }
    if (!schema) {
        main.replaceChildren(h('h1', { tabindex: '-1' }, `This ${what} is not available`), h('p', { role: 'alert' }, problem?.message ?? ''), h('p', { hidden: signedIn }, 'If it is your team’s own, ', h('a', { href: '#/sign-in' }, 'sign in'), ' and come back to this page.'), h('p', {}, h('a', { href: '#/' }, 'Back to all rulesets')));
        return;
    }
    document.title = `${schema.name} · Eligo`;
    // Focusable so that a keyboard can scroll a graph wider than the screen.
    const graphView = h('div', { class: 'graph-view', id: 'graph-view', tabindex: '0', role: 'region', 'aria-label': 'Graph of the rules' });
    const graphBox = h('details', { class: 'graph', id: 'graph' }, h('summary', {}, 'The rules as a graph'), h('p', {}, 'Each answer feeds conditions, directly or through the amounts the law works out from it (the six-sided boxes), conditions feed groups, groups feed the outcome. Colours and marks show where your answers stand.'), legend(), zoomControls(graphView), graphView);
    const v = {
        api: client,
        target,
        decideTarget: decideTarget(target, schema.ruleset_id),
        schema,
        version: h('p', { class: 'meta', id: 'version' }),
        decisionDate: '',
        fields: new Map(schema.fields.map((f) => [f.field_id, f])),
        lists: listsOf(schema.fields),
        people: new Map(),
        drafts: new Map(),
        iv: new Interview(),
        progress: h('div', { class: 'progress', id: 'progress' }),
        warnings: h('div', { class: 'warnings', id: 'warnings' }),
        // Not a live region: each new question or decision takes the focus,
        // which is what a screen reader announces.
        step: h('section', { class: 'step', id: 'step' }),
        answers: h('section', { class: 'answers', id: 'answers', 'aria-labelledby': 'answers-heading' }),
        graphBox,
        graphView,
        asked: 0,
    };
    graphBox.addEventListener('toggle', () => {
        if (graphBox.open)
            void updateGraph(v);
    });
    drawVersion(v);
    main.replaceChildren(h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'All rulesets')), h('h1', { tabindex: '-1' }, schema.name), v.version, asOfForm(v), v.progress, v.warnings, v.step, v.answers, graphBox);
    await refresh(v, false);
}
/**
 * drawVersion names the version shown: the release of a rulebook, the cut
 * of a ruleset. The slug, an address for programs, is not for applicants:
 * the audit envelope below the decision carries it.
 */
function drawVersion(v) {
    v.version.replaceChildren(v.target.kind === 'rulebook' ? `Rulebook, release ${v.schema.ruleset_version ?? ''}` : `Version ${v.schema.ruleset_version ?? ''} of these rules`);
}
/** shown is the cut (or rulebook) whose schema the page shows, for its texts and graph. */
function shown(v) {
    return { kind: v.target.kind, id: v.schema.ruleset_id };
}
/**
 * follow makes the page show the cut that answered d when it is another
 * than the one shown (a slug decided as of a date in an earlier period):
 * its questions, texts, graph and version. It reports false when a newer
 * decision was asked for meanwhile, or the cut's schema could not be read.
 */
async function follow(v, d, asked) {
    if (v.target.kind !== 'ruleset' || !d.ruleset_id || d.ruleset_id === v.schema.ruleset_id)
        return true;
    let schema;
    try {
        schema = await v.api.schema({ kind: 'ruleset', id: d.ruleset_id });
    }
    catch (err) {
        if (asked === v.asked)
            v.step.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message));
        return false;
    }
    if (asked !== v.asked)
        return false;
    v.schema = schema;
    v.fields = new Map(schema.fields.map((f) => [f.field_id, f]));
    v.lists = listsOf(schema.fields);
    v.texts = undefined;
    v.graph = undefined;
    drawVersion(v);
    return true;
}
function body(v, answers = v.iv.answers, flags = {}) {
    return decideBody(v.decideTarget, answers, v.iv.declined, flags, v.decisionDate);
}
/**
 * asOfForm lets a caseworker decide as of another date than today (an
 * application date, an appeal): the request's decision_date. The decision
 * says which date was used.
 */
function asOfForm(v) {
    const input = h('input', { type: 'date', id: 'decision-date', name: 'decision_date', 'aria-describedby': 'decision-date-hint' });
    const form = h('form', {
        class: 'asof',
        id: 'asof-form',
        novalidate: true,
        onsubmit: (e) => {
            e.preventDefault();
            v.decisionDate = input.value;
            announce(input.value ? `Deciding as of ${formatDate(input.value)}.` : 'Deciding as of today.');
            void refresh(v, false);
        },
    }, h('label', { for: 'decision-date' }, 'Decide as of'), h('p', { id: 'decision-date-hint', class: 'hint' }, 'The date the rules are applied as of, for example the day an application was made. Leave it empty for today.'), h('div', { class: 'row' }, input, h('button', { type: 'submit', id: 'decision-date-apply', class: 'secondary' }, 'Apply the date'), h('button', {
        type: 'button',
        class: 'secondary',
        id: 'decision-date-clear',
        onclick: () => {
            input.value = '';
            form.requestSubmit();
        },
    }, 'Use today')));
    return h('details', { class: 'note asof-box', id: 'asof' }, h('summary', {}, 'For caseworkers: decide as of another date'), form);
}
/** refresh asks /decide about the answers so far and draws what comes next. */
async function refresh(v, focus) {
    const asked = ++v.asked;
    let d;
    try {
        d = await v.api.decide(body(v));
    }
    catch (err) {
        if (asked === v.asked)
            v.step.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message));
        return;
    }
    if (asked !== v.asked || !(await follow(v, d, asked)))
        return;
    let step = nextStep(d, v.iv);
    // Back and Change show their question, unless an answer the API refused
    // must be corrected first.
    if (v.override && !(step.kind === 'question' && step.error)) {
        step = { kind: 'question', fieldId: v.override.fieldId };
    }
    const settled = step.kind !== 'question';
    // An answer the API refused is given, not answered: progress counts the accepted ones.
    const p = progress(acceptedAnswers(v.iv.answers, d.field_errors), d.optimal_path, d.decision !== 'undetermined', v.lastProgress);
    v.lastProgress = p;
    v.progress.replaceChildren(h('progress', { max: String(Math.max(p.total, 1)), value: String(p.answered), 'aria-labelledby': 'progress-text' }), h('p', { id: 'progress-text' }, p.text));
    v.last = d;
    drawAnswers(v, d);
    // The server's notes on the request (a plan it could not make, a date
    // outside the period the rules hold for) explain an outcome that would
    // otherwise look unexplained.
    const notes = d.warnings ?? [];
    v.warnings.replaceChildren(
    // role=note on the list itself would hide its items from the list
    // (axe: listitem), so the note wraps it.
    ...(notes.length
        ? [h('div', { role: 'note', 'aria-label': 'Notes from the service' }, h('ul', {}, ...notes.map((w) => h('li', { 'data-code': w.code }, w.message))))]
        : []));
    if (step.kind === 'question') {
        const list = listOfField(v.lists, step.fieldId);
        // A household is asked how many first, then person by person in one
        // form (unless the count itself was refused).
        const household = list && countOf(v.iv.answers, list.id) !== null && !(step.fieldId === list.id && step.error) ? list : undefined;
        const fieldId = list && !household ? list.id : step.fieldId;
        const field = v.fields.get(fieldId);
        const text = v.override?.fieldId === fieldId ? v.override.text : (v.iv.answers.get(fieldId)?.text ?? '');
        if (household) {
            drawHousehold(v, household, fieldId, d, focus);
        }
        else if (field) {
            forgetDrafts(v);
            drawQuestion(v, field, text, step.error, focus);
        }
    }
    else {
        forgetDrafts(v);
        await drawDecision(v, step, focus);
    }
    if (v.graphBox.open)
        void updateGraph(v);
    if (settled)
        announce(`Decision: ${outcomeWords[d.decision]}.`);
    else if (v.sayNext)
        announce(v.sayNext);
    v.sayNext = undefined;
}
/** forgetDrafts drops what the household step held for its next drawing, when another step is drawn instead. */
function forgetDrafts(v) {
    v.drafts.clear();
    v.focusNext = undefined;
}
/** labelsOf is the names given to the people of list, kept by the page. */
function labelsOf(v, list) {
    let labels = v.people.get(list);
    if (!labels) {
        labels = [];
        v.people.set(list, labels);
    }
    return labels;
}
/** named is the schema's fields with every person's answers labelled by who they are about ("Maria's age"). */
function named(v) {
    return v.lists.size ? withPeople(v.fields, v.lists, v.people) : v.fields;
}
/**
 * drawHousehold draws the household step asking asked (a member's answer,
 * or the list itself): every person's questions under their name, with
 * Add and Remove (householdview.ts).
 */
function drawHousehold(v, list, asked, d, focus) {
    const labels = labelsOf(v, list.id);
    // Back and Change reopen an answer filled in, as a single question is.
    if (v.override?.fieldId === asked && v.override.text && !v.drafts.has(asked))
        v.drafts.set(asked, v.override.text);
    // The first question of person i, where the focus goes when they are added, or come next after a removal.
    const firstOf = (i) => (list.names[0] === undefined ? undefined : memberFieldId(list.id, i, list.names[0]));
    const form = householdForm({
        list,
        fields: v.fields,
        iv: v.iv,
        labels,
        drafts: v.drafts,
        asked,
        errors: new Map(d.field_errors.map((e) => [e.field, e.message])),
        focus: v.focusNext,
        canBack: v.iv.history.length > 0,
        onContinue: () => {
            v.override = undefined;
            void refresh(v, true);
        },
        onSkip: () => {
            form.keepDrafts();
            v.drafts.delete(asked);
            void skip(v, v.fields.get(asked));
        },
        onBack: () => void back(v),
        onAdd: () => {
            if ((countOf(v.iv.answers, list.id) ?? 0) >= list.max)
                return;
            form.keepDrafts();
            const i = v.iv.addMember(list.id);
            v.focusNext = firstOf(i);
            v.override = { fieldId: firstOf(i) ?? list.id, text: '' };
            v.sayNext = `${personName(list, labels, i)} added.`;
            void refresh(v, true);
        },
        onRemove: (i) => {
            form.keepDrafts();
            const who = personName(list, labels, i);
            const n = countOf(v.iv.answers, list.id) ?? 0;
            v.drafts = renumberMap(v.drafts, list.id, i);
            v.people.set(list.id, withoutPerson(labels, i));
            v.iv.removeMember(list.id, i);
            // The focus goes to the person who took their place, else to Add.
            const next = i < n - 1 ? firstOf(i) : undefined;
            v.focusNext = next ?? 'add';
            v.override = { fieldId: next ?? list.id, text: '' };
            v.sayNext = `${who} removed.`;
            void refresh(v, true);
        },
        onRename: () => {
            if (v.last)
                drawAnswers(v, v.last);
        },
    });
    v.focusNext = undefined;
    v.step.replaceChildren(form.node);
    if (focus)
        form.focus();
}
function drawQuestion(v, field, text, error, focus) {
    const c = control(field, 'q', labelOf(field), text, error);
    const notes = notesOf(field);
    const empty = h('p', { class: 'field-error', role: 'alert', hidden: true, id: 'empty-error' }, 'Enter an answer, or choose Skip.');
    const form = h('form', { class: 'question-form', id: 'question-form', novalidate: true, 'data-field': field.field_id }, c.node, empty, notes.why.length ? h('details', { class: 'note' }, h('summary', {}, 'Why we ask'), ...notes.why.map((t) => h('p', {}, t))) : null, notes.legal.length ? h('details', { class: 'note' }, h('summary', {}, 'Legal background'), ...notes.legal.map((t) => h('p', {}, t))) : null, h('div', { class: 'buttons' }, h('button', { type: 'submit', id: 'continue' }, 'Continue'), h('button', { type: 'button', class: 'secondary', id: 'skip', onclick: () => void skip(v, field) }, 'Skip this question'), h('button', { type: 'button', class: 'secondary', id: 'back', disabled: v.iv.history.length === 0, onclick: () => void back(v) }, 'Back')));
    form.addEventListener('submit', (e) => {
        e.preventDefault();
        const t = c.read();
        const json = encodeAnswer(field, t);
        if (json === null) {
            empty.hidden = false;
            c.focus();
            return;
        }
        v.override = undefined;
        v.iv.answer(field.field_id, { text: t, json });
        void refresh(v, true);
    });
    v.step.replaceChildren(form);
    if (focus)
        c.focus();
}
async function skip(v, field) {
    v.override = undefined;
    v.iv.skip(field.field_id);
    announce('Question skipped.');
    await refresh(v, true);
}
async function back(v) {
    const prev = v.iv.back();
    v.override = prev;
    await refresh(v, true);
}
function drawAnswers(v, d) {
    const errors = new Map(d.field_errors.map((e) => [e.field, e.message]));
    const fields = named(v);
    const items = v.iv.history.map((id) => {
        const f = fields.get(id);
        const a = v.iv.answers.get(id);
        const err = errors.get(id);
        const shown = a ? (f ? answerText(f, a) : a.text) : 'Skipped';
        return h('li', { 'data-field': id, class: err ? 'invalid' : '' }, h('span', { class: 'asked' }, fieldLabel(f, id)), ' ', h('strong', { class: 'given' }, shown), ' ', h('button', { type: 'button', class: 'link', onclick: () => change(v, id), 'aria-label': `Change the answer to: ${fieldLabel(f, id)}` }, 'Change'), err ? h('p', { class: 'field-error' }, err) : null);
    });
    v.answers.replaceChildren(h('h2', { id: 'answers-heading' }, 'Your answers'), items.length ? h('ol', { class: 'answer-list' }, ...items) : h('p', {}, 'None yet.'));
}
function change(v, fieldId) {
    v.override = { fieldId, text: v.iv.answers.get(fieldId)?.text ?? '' };
    void refresh(v, true);
}
async function drawDecision(v, step, focus) {
    let d;
    try {
        d = await v.api.decide(body(v, v.iv.answers, { include_explanation: true }));
    }
    catch (err) {
        v.step.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message));
        return;
    }
    const heading = h('h2', { id: 'decision-heading', tabindex: '-1' }, 'Decision: ', h('span', { class: 'outcome outcome-' + d.decision, id: 'outcome' }, outcomeWords[d.decision]));
    const texts = await criterionTexts(v);
    const known = knownValues(v.iv.answers, d.field_errors);
    // Each person's answers by who they are about ("Maria's age"), never by
    // id; each person's values with their name beside them.
    const fields = named(v);
    const who = (id) => whoIs(v.lists, v.people, id);
    const parts = [
        heading,
        h('p', {}, sentence(d, v.schema.name)),
        d.decision_date ? h('p', { id: 'decided-as-of' }, `Decided as of ${formatDate(d.decision_date)}${v.decisionDate ? '' : ' (today)'}.`) : null,
        computedValues(d),
        sectionResults(d, new Map((v.schema.sections ?? []).map((s) => [s.id, s.name]))),
    ];
    // Explain-failure reasons are worked out for rulesets; a rulebook shows
    // each part's own outcome instead.
    // Outside the rules' period no condition stands in the way, the date
    // does: that is said instead of the reasons.
    const outside = outsidePeriodWarning(d.warnings);
    if (outside) {
        parts.push(outsidePeriod(d.decision_date, outside));
    }
    else if (d.decision !== 'eligible' && d.field_errors.length === 0 && d.ruleset_id) {
        try {
            const fx = await v.api.explainFailure(d.ruleset_id, fieldValuesText(v.iv.answers), 'eligible', v.decisionDate);
            // Only the people there are: nobody is asked about a person the household does not have.
            for (const r of Object.values(fx.reasons))
                r.missing_fields = r.missing_fields.filter((id) => inHousehold(v.iv.answers, id));
            parts.push(reasons(fields, texts, fx, d.decision_date, known, who));
        }
        catch (err) {
            parts.push(h('p', { class: 'error' }, `The reasons could not be worked out: ${err.message}`));
        }
    }
    if (step.kind === 'stuck' && v.iv.declined.size) {
        parts.push(h('section', { class: 'skipped' }, h('h3', {}, 'Questions you skipped'), h('p', {}, 'The outcome cannot be settled without at least one of them.'), h('ul', {}, ...[...v.iv.declined].map((id) => h('li', {}, h('button', { type: 'button', class: 'link', onclick: () => change(v, id) }, `Answer: ${fieldLabel(fields.get(id), id)}`))))));
    }
    parts.push(explanation(fields, texts, d, known, who), whatIf(v, d, fields), envelopeBox(auditEnvelope(d, v.iv.answers, v.iv.declined)));
    parts.push(h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', id: 'back', disabled: v.iv.history.length === 0, onclick: () => void back(v) }, 'Back'), h('a', { class: 'button secondary', href: targetHref(v.target), onclick: (e) => restart(e, v) }, 'Start again')));
    v.step.replaceChildren(h('section', { class: 'decision decision-' + d.decision, 'aria-labelledby': 'decision-heading' }, ...parts.filter((p) => p !== null)));
    if (focus)
        heading.focus();
}
/** criterionTexts reads the criteria's plain-language conditions once; without them, titles stand alone. */
async function criterionTexts(v) {
    if (!v.texts) {
        try {
            v.texts = await v.api.criterionTexts(shown(v));
        }
        catch {
            return new Map();
        }
    }
    return v.texts;
}
function restart(e, v) {
    e.preventDefault();
    v.people.clear();
    v.drafts.clear();
    v.iv.answers.clear();
    v.iv.declined.clear();
    v.iv.history.length = 0;
    v.override = undefined;
    void refresh(v, true);
}
function sentence(d, name) {
    switch (d.decision) {
        case 'eligible':
            return `On your answers, the rules of “${name}” are met.`;
        case 'not_eligible':
            return `On your answers, the rules of “${name}” are not met.`;
    }
    return d.field_errors.length
        ? 'Some answers could not be used; correct them to get a decision.'
        : 'The answers given do not settle the outcome.';
}
/** whatIf lets the applicant change one answer and see the outcome it would give. */
function whatIf(v, d, fields) {
    const answered = [...v.iv.answers.keys()].filter((id) => fields.has(id));
    if (!answered.length)
        return null;
    const select = h('select', { id: 'whatif-field' }, ...answered.map((id) => h('option', { value: id }, fieldLabel(fields.get(id), id))));
    const slot = h('div', { class: 'whatif-input' });
    const result = h('p', { id: 'whatif-result', 'aria-live': 'polite' });
    let current;
    const draw = () => {
        const f = fields.get(select.value);
        current = control(f, 'whatif', 'The other answer', v.iv.answers.get(f.field_id)?.text ?? '');
        slot.replaceChildren(current.node);
        result.replaceChildren();
    };
    select.addEventListener('change', draw);
    const form = h('form', { class: 'whatif', id: 'whatif', novalidate: true }, h('label', { for: 'whatif-field' }, 'Which answer'), select, slot, h('button', { type: 'submit', id: 'whatif-try' }, 'See the outcome'), result);
    form.addEventListener('submit', (e) => {
        e.preventDefault();
        const f = fields.get(select.value);
        const text = current?.read() ?? '';
        const json = encodeAnswer(f, text);
        if (json === null) {
            result.replaceChildren('Enter the other answer first.');
            return;
        }
        const a = { text, json };
        void v.api.decide(body(v, v.iv.with(f.field_id, a))).then((alt) => {
            const same = alt.decision === d.decision;
            result.replaceChildren('With ', h('strong', {}, `${fieldLabel(f)}: ${answerText(f, a)}`), same ? ', the outcome would stay ' : ', the outcome would be ', h('strong', { class: 'outcome outcome-' + alt.decision }, outcomeWords[alt.decision]), same ? '.' : ` instead of ${outcomeWords[d.decision]}.`, alt.field_errors.length ? ` (${alt.field_errors.map((x) => x.message).join('; ')})` : '', ' ', h('button', {
                type: 'button',
                class: 'secondary',
                id: 'whatif-keep',
                onclick: () => {
                    v.iv.answer(f.field_id, a);
                    void refresh(v, true);
                },
            }, 'Keep this answer'));
        }, (err) => result.replaceChildren(err.message));
    });
    draw();
    return h('section', { class: 'whatif-box', 'aria-labelledby': 'whatif-heading' }, h('h3', { id: 'whatif-heading' }, 'What if one answer were different?'), form);
}
async function updateGraph(v) {
    try {
        v.graph ??= await v.api.graph(shown(v));
        const d = await v.api.decide(body(v, v.iv.answers, { include_graph_overlay: true }));
        // The fields by their labels for people, as everywhere else on the page.
        const labelled = withFieldLabels(v.graph.mermaid, v.graph.graph.nodes, (id) => fieldLabel(named(v).get(id), id));
        const text = d.graph_overlay ? withOverlay(labelled, d.graph_overlay.nodes) : labelled;
        await drawGraph(v.graphView, text, `Graph of ${v.schema.name}: answers, conditions, groups and the outcome, coloured by your answers.`);
    }
    catch (err) {
        v.graphView.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message));
    }
}
