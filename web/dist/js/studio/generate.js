// The Generate screen: the team's language model writes the draft. The
// author picks one of the server's models and types the provider key for
// this one generation (sent in X-Provider-Key, then gone: the field is
// emptied as the request leaves and nothing keeps it); "Generate" starts
// it and "Generate and test" also waits for the tests. While it runs the
// screen polls the status (stage, round, tests, tokens, time) and reads
// out only a change of stage; Cancel stops it after a confirmation. The
// outcome says what the tests, quotes and review make of the new draft, a
// prompt over the model's budget is explained with its largest sources,
// and the draft's source questions can be settled as guidance.
import { announce, append, h, idFor } from '../dom.js';
import { outcomeWords } from './caseform.js';
import { StudioError, newIdempotencyKey } from './client.js';
import { loadDraft } from './editor.js';
import { announcement, finishedHeading, isActive, outcomeOf, overBudget, overBudgetWords, progressFacts, settledReading, settleText, } from './generation.js';
import { screenFor, screenTitles, studioHref } from './routes.js';
import { alertBox, busy, confirmDialog, errorMessage, field, radioChoice } from './ui.js';
/** pollEvery is how often a running generation's status is read, in milliseconds. */
const pollEvery = 1000;
/** generateView draws the Generate screen of project into container. */
export async function generateView(client, projectId, container) {
    const base = `/projects/${encodeURIComponent(projectId)}`;
    const href = (screen) => studioHref({ kind: 'project', projectId, screen });
    const alert = alertBox('generate-error');
    // The form: model, mode, key, and the two ways to start.
    const model = field('gen-model', 'Model', h('select', {}, h('option', { value: '' }, 'The server’s default model')), 'Loading the server’s models…');
    const modelHint = model.row.querySelector('.hint');
    let models = [];
    const showBudget = () => {
        const m = models.find((x) => x.name === model.control.value) ?? models.find((x) => x.default);
        if (modelHint)
            modelHint.textContent = m ? `With this model the prompt may count up to ${m.token_budget.toLocaleString('en')} tokens.` : 'The server chooses its default model.';
    };
    model.control.addEventListener('change', showBudget);
    const modeName = 'gen-mode';
    const modeChoice = (value, label, hint, checked) => radioChoice(modeName, value, label, hint, checked);
    const mode = h('fieldset', { class: 'control', id: 'gen-mode' }, h('legend', {}, 'What the model should do'), modeChoice('fresh', 'Write a new draft', 'from the active sources, the guidance and the tests.', true), modeChoice('refine', 'Refine the ruleset in force', 'make the smallest change that passes the tests.', false));
    const key = field('provider-key', 'Provider key', h('input', { type: 'password', class: 'wide', autocomplete: 'off', spellcheck: 'false' }), 'Your model provider’s key, for this generation only: it is sent with the request and not kept, on this page or on the server. Type it again for the next one.');
    const startButton = h('button', { type: 'button', id: 'generate', class: 'secondary' }, 'Generate');
    const testButton = h('button', { type: 'submit', id: 'generate-and-test' }, 'Generate and test');
    const form = h('form', { id: 'generate-form', novalidate: true, 'aria-labelledby': 'generate-heading' }, model.row, mode, key.row, h('p', { class: 'hint' }, '“Generate and test” waits for the tests’ results; “Generate” starts the generation and you can leave this screen while it runs.'), h('div', { class: 'buttons' }, testButton, startButton));
    const budget = h('div', { id: 'generate-budget', class: 'alert', role: 'alert', hidden: true });
    // The progress panel: the stage line is the live region (changed only
    // when the stage does); the facts beside it change at every poll.
    const stageLine = h('p', { id: 'gen-stage', role: 'status', 'aria-live': 'polite', class: 'draft-status' });
    const fact = (id, label) => {
        const dd = h('dd', { id });
        return [h('div', {}, h('dt', {}, label), dd), dd];
    };
    const [roundRow, roundEl] = fact('gen-round', 'Round');
    const [testsRow, testsEl] = fact('gen-tests', 'Tests');
    const [tokensRow, tokensEl] = fact('gen-tokens', 'Tokens used');
    const [elapsedRow, elapsedEl] = fact('gen-elapsed', 'Time');
    const cancelButton = h('button', { type: 'button', id: 'cancel-generation', class: 'danger' }, 'Cancel the generation');
    const progress = h('section', { id: 'gen-progress', class: 'card', 'aria-labelledby': 'gen-progress-heading', hidden: true }, h('h3', { id: 'gen-progress-heading', tabindex: '-1' }, 'Generation in progress'), stageLine, h('dl', { class: 'facts' }, roundRow, testsRow, tokensRow, elapsedRow), h('div', { class: 'buttons' }, cancelButton));
    const outcome = h('section', { id: 'gen-outcome', 'aria-labelledby': 'gen-outcome-heading', hidden: true });
    const questionsList = h('ul', { id: 'source-questions', class: 'checks' });
    const questionsSummary = h('p', { id: 'questions-summary', class: 'hint' }, 'Loading the draft’s source questions…');
    container.append(h('h2', { tabindex: '-1', id: 'generate-heading' }, 'Generate the draft'), h('p', { class: 'hint' }, 'Your language model writes the rules from the project’s active sources, its guidance and its tests. Each draft is compiled, its quotes are checked against the sources and the tests are run; what fails goes back to the model for up to three rounds of repair. The best draft becomes the project’s draft, passing or not.'), alert.el, form, budget, progress, outcome, h('h3', {}, 'Source questions'), questionsSummary, questionsList);
    // One generation is watched at a time; run tells a stale poll or answer
    // from the current one.
    let run = 0;
    let watching = false;
    let last = null;
    let ticker;
    const setRunning = (on) => {
        progress.hidden = !on;
        testButton.disabled = on;
        startButton.disabled = on;
        if (!on && ticker !== undefined) {
            window.clearInterval(ticker);
            ticker = undefined;
        }
    };
    const drawProgress = (st) => {
        const said = announcement(last, st);
        if (said)
            stageLine.textContent = said;
        last = st;
        const f = progressFacts(st, Date.now());
        roundEl.textContent = f.round;
        testsEl.textContent = f.tests;
        tokensEl.textContent = f.tokens;
        elapsedEl.textContent = f.elapsed;
        if (ticker === undefined) {
            ticker = window.setInterval(() => {
                if (!container.isConnected || !last) {
                    window.clearInterval(ticker);
                    return;
                }
                elapsedEl.textContent = progressFacts(last, Date.now()).elapsed;
            }, 1000);
        }
    };
    const drawOutcome = (o, heading, focus) => {
        const hintScreen = o.hint ? screenFor(o.hint.actionableVia) : null;
        const title = h('h3', { id: 'gen-outcome-heading', tabindex: '-1' }, heading);
        outcome.className = 'card check status-' + (o.kind === 'accepted' ? 'pass' : o.kind === 'failing_tests' ? 'warn' : 'fail');
        outcome.replaceChildren();
        append(outcome, title, h('p', { id: 'gen-headline', class: 'count' }, o.headline), o.lines.length ? h('ul', { class: 'evidence' }, ...o.lines.map((l) => h('li', {}, l))) : null, o.failures.length
            ? h('div', {}, h('h4', {}, 'Tests that fail'), h('ul', { id: 'gen-failures', class: 'evidence' }, ...o.failures.map((f) => h('li', {}, h('strong', {}, f.name), `: expected ${outcomeWords(f.expected).toLowerCase()}, decided ${outcomeWords(f.got).toLowerCase()}.`, f.hint ? h('span', { class: 'hint' }, ' ' + f.hint) : null))))
            : null, o.hint
            ? h('p', { id: 'gen-next' }, h('strong', {}, 'Next step: '), o.hint.message, ' ', hintScreen ? h('a', { href: href(hintScreen) }, `Go to ${screenTitles[hintScreen]}`) : null)
            : null, o.kind === 'accepted' || o.kind === 'failing_tests' ? h('p', {}, h('a', { href: href('draft'), id: 'gen-open-draft' }, 'Open the draft on the Rules screen')) : null);
        outcome.hidden = false;
        if (focus)
            title.focus();
    };
    const finish = async (st, result, focus) => {
        watching = false;
        setRunning(false);
        last = null;
        const o = outcomeOf(st, result ?? (st?.result || null));
        drawOutcome(o, focus ? finishedHeading[o.kind] : 'The last generation', focus);
        if (focus)
            announce(o.headline);
        await loadQuestions();
    };
    const poll = async (id, waitingForStart) => {
        if (id !== run || !container.isConnected)
            return;
        let st;
        try {
            st = await client.call('GET', `${base}/status`);
        }
        catch (err) {
            if (id !== run)
                return;
            alert.show(errorMessage(err));
            window.setTimeout(() => void poll(id, waitingForStart), pollEvery * 3);
            return;
        }
        if (id !== run || !watching)
            return;
        if (isActive(st)) {
            drawProgress(st);
            window.setTimeout(() => void poll(id, false), pollEvery);
        }
        else if (waitingForStart) {
            // generate-and-test has not started its job yet; the status still
            // shows the previous one.
            window.setTimeout(() => void poll(id, true), pollEvery / 2);
        }
        else {
            await finish(st, null, true);
        }
    };
    /** watch follows the active generation (st, when known) until it ends. */
    const watch = (st) => {
        const id = ++run;
        watching = true;
        outcome.hidden = true;
        setRunning(true);
        stageLine.textContent = '';
        last = null;
        if (st && isActive(st))
            drawProgress(st);
        else
            stageLine.textContent = 'Starting the generation.';
        window.setTimeout(() => void poll(id, st === null || !isActive(st)), pollEvery);
        return id;
    };
    /** takeKey reads the provider key and empties its field: the request is the only place it goes. */
    const takeKey = () => {
        const headers = { 'X-Provider-Key': key.control.value };
        key.control.value = '';
        return headers;
    };
    const refused = async (err) => {
        const over = err instanceof StudioError ? overBudget(err.body) : null;
        if (over) {
            const w = overBudgetWords(over);
            budget.replaceChildren();
            append(budget, h('p', {}, w.headline), w.sources.length ? h('p', {}, 'The largest active sources:') : null, w.sources.length ? h('ul', {}, ...w.sources.map((s) => h('li', {}, s))) : null, h('p', {}, w.advice, ' ', h('a', { href: href('sources') }, 'Go to Sources')));
            budget.hidden = false;
            return;
        }
        alert.show(errorMessage(err));
        if (err instanceof StudioError && err.reason === 'generation_active') {
            // Another start (another tab, a colleague) is running: follow it.
            const st = await client.call('GET', `${base}/status`).catch(() => null);
            if (st && isActive(st))
                watch(st);
        }
    };
    const start = async (andTest) => {
        alert.clear();
        budget.hidden = true;
        key.setError('');
        if (!key.control.value.trim()) {
            key.setError('Type your provider key: the model is called with it, and the server has none of its own.');
            key.control.focus();
            return;
        }
        const checked = mode.querySelector('input:checked');
        const body = { mode: checked?.value ?? 'fresh' };
        if (model.control.value)
            body.model = model.control.value;
        if (!andTest) {
            let st;
            try {
                st = await client.call('POST', `${base}/generate`, body, takeKey());
            }
            catch (err) {
                await refused(err);
                return;
            }
            watch(st);
            progress.querySelector('h3')?.focus();
            return;
        }
        const id = watch(null);
        progress.querySelector('h3')?.focus();
        let answer;
        try {
            answer = await client.call('POST', `${base}/generate-and-test`, body, takeKey());
        }
        catch (err) {
            if (id !== run)
                return;
            watching = false;
            setRunning(false);
            if (err instanceof StudioError && err.status !== 409 && err.body?.detail?.job_id) {
                // The generation ran and failed: its status says why.
                const st = await client.call('GET', `${base}/status`).catch(() => null);
                await finish(st, null, true);
                return;
            }
            await refused(err);
            return;
        }
        if (id !== run)
            return;
        if ('state' in answer) {
            // Still running after the request's wait: poll until it ends (a
            // fresh chain, which no longer waits for the job to appear).
            if (isActive(answer))
                drawProgress(answer);
            const next = ++run;
            window.setTimeout(() => void poll(next, false), pollEvery);
            return;
        }
        run++;
        await finish(null, answer, true);
    };
    // busy gives the buttons back when the request is answered; while the
    // generation it started runs they stay disabled.
    const keepRunning = () => {
        if (watching)
            setRunning(true);
    };
    form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(testButton, () => start(true)).then(keepRunning);
    });
    startButton.addEventListener('click', () => void busy(startButton, () => start(false)).then(keepRunning));
    cancelButton.addEventListener('click', () => {
        void (async () => {
            const job = last?.job_id;
            if (!job)
                return;
            const sure = await confirmDialog('Cancel the generation?', [h('p', {}, 'The model’s work on this generation stops and is not kept. You can start another at once.')], 'Cancel the generation', 'Keep it running');
            if (!sure || !watching)
                return;
            try {
                const st = await busy(cancelButton, () => client.call('POST', `${base}/generation/cancel`, { job_id: job }));
                run++;
                await finish(st, null, true);
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        })();
    });
    // Source questions: each with its quote, the question and the readings
    // the text allows; settling one adds it as guidance for the next
    // generation and marks it resolved on the draft (the note's `settles`).
    let guidance = [];
    const questionItem = (q) => {
        const settled = settledReading(q, guidance) ?? (q.resolved ? q.provisional_reading : null);
        const id = idFor('question', q.id);
        const heading = h('h4', { id: id + '-heading', tabindex: '-1' }, q.question);
        const quote = h('figure', { class: 'quote' }, h('blockquote', {}, q.quote), h('figcaption', { class: 'hint' }, 'From the sources'));
        if (settled !== null) {
            return h('li', { class: 'card check status-pass', id }, heading, quote, h('p', { class: 'settled' }, h('span', { class: 'badge badge-pass' }, 'Settled'), ' Read as: ', settled));
        }
        const readings = [...q.candidate_readings];
        if (q.provisional_reading && !readings.includes(q.provisional_reading))
            readings.unshift(q.provisional_reading);
        const name = id + '-reading';
        const choices = readings.map((r, i) => h('div', { class: 'choice' }, h('input', { type: 'radio', name, id: `${name}-${i}`, value: r, checked: r === q.provisional_reading || (!q.provisional_reading && i === 0) }), h('label', { for: `${name}-${i}` }, r, r === q.provisional_reading ? ' ' : null, r === q.provisional_reading ? h('span', { class: 'badge badge-info' }, 'Used in the draft for now') : null)));
        const error = alertBox(id + '-error');
        const settle = h('button', { type: 'button', class: 'small' }, 'Settle with this reading');
        const item = h('li', { class: 'card check status-warn', id }, heading, quote, h('fieldset', { class: 'control' }, h('legend', {}, 'Readings the text allows'), ...choices), error.el, h('div', { class: 'buttons' }, settle));
        settle.addEventListener('click', () => {
            void busy(settle, async () => {
                error.clear();
                const chosen = item.querySelector(`input[name="${name}"]:checked`)?.value;
                if (!chosen)
                    return;
                try {
                    const note = await client.call('POST', `${base}/guidance`, { guidance_text: settleText(q, chosen), process_type: 'rule_generation', settles: q.id }, { 'Idempotency-Key': newIdempotencyKey() });
                    guidance.push(note);
                    // The note marked the question resolved on the draft as well.
                    const next = questionItem({ ...q, resolved: true });
                    item.replaceWith(next);
                    next.querySelector('h4')?.focus();
                    announce('Settled: the next generation follows this reading.');
                }
                catch (err) {
                    error.show(errorMessage(err));
                }
            });
        });
        return item;
    };
    const loadQuestions = async () => {
        try {
            const [draft, notes] = await Promise.all([loadDraft(client, projectId), client.call('GET', `${base}/guidance`)]);
            guidance = notes.guidance ?? [];
            const qs = draft?.source_questions ?? [];
            const open = qs.filter((q) => !q.resolved && settledReading(q, guidance) === null).length;
            questionsSummary.textContent = qs.length
                ? `${qs.length === 1 ? 'The model asked one question' : `The model asked ${qs.length} questions`} about the sources (${open ? `${open} still open` : 'all settled'}). Settle each with the reading the team chooses: it becomes guidance, and the next generation follows it.`
                : 'The draft raises no question about its sources.';
            questionsList.replaceChildren(...qs.map(questionItem));
        }
        catch (err) {
            questionsSummary.textContent = 'The source questions could not be loaded.';
            alert.show(errorMessage(err));
        }
    };
    // The models, and a generation already running (the page was reloaded,
    // or it was started elsewhere).
    const [list, status] = await Promise.all([
        client.call('GET', '/generation/models').catch((err) => {
            alert.show(errorMessage(err));
            return null;
        }),
        client.call('GET', `${base}/status`).catch((err) => {
            alert.show(errorMessage(err));
            return null;
        }),
    ]);
    models = list?.models ?? [];
    if (models.length) {
        model.control.replaceChildren(...models.map((m) => h('option', { value: m.name, selected: m.default }, m.default ? `${m.name} (the server’s default)` : m.name)));
    }
    showBudget();
    if (status && isActive(status)) {
        watch(status);
        await loadQuestions();
    }
    else if (status?.job_id && status.state !== 'idle') {
        await finish(status, null, false);
    }
    else {
        await loadQuestions();
    }
}
