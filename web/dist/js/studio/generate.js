// The Generate screen: the team's language model writes the draft. The
// author picks one of the server's models and types the provider key for
// this one generation (genform.ts); "Generate" starts it and "Generate and
// test" also waits for the tests. While it runs the screen polls the status
// and shows it (genprogress.ts); Cancel stops it after a confirmation. The
// outcome says what the tests, quotes and review make of the new draft, a
// prompt over the model's budget is explained with its largest sources
// (genoutcome.ts), and the draft's source questions can be settled as
// guidance (genquestions.ts). This module runs one generation from start to
// end: starting it, following its status, and finishing.
import { announce, h } from '../dom.js';
import { StudioError } from './client.js';
import { generateForm } from './genform.js';
import { budgetPanel, outcomePanel } from './genoutcome.js';
import { progressPanel } from './genprogress.js';
import { sourceQuestions } from './genquestions.js';
import { finishedHeading, isActive, outcomeOf } from './generation.js';
import { studioHref } from './routes.js';
import { alertBox, busy, confirmDialog, errorMessage } from './ui.js';
/** pollEvery is how often a running generation's status is read, in milliseconds. */
const pollEvery = 1000;
/** generateView draws the Generate screen of project into container. */
export async function generateView(client, projectId, container) {
    const base = `/projects/${encodeURIComponent(projectId)}`;
    const href = (screen) => studioHref({ kind: 'project', projectId, screen });
    const alert = alertBox('generate-error');
    const form = generateForm();
    const budget = budgetPanel(href);
    const progress = progressPanel(container);
    const outcome = outcomePanel(href);
    const questions = sourceQuestions(client, projectId, alert);
    container.append(h('h2', { tabindex: '-1', id: 'generate-heading' }, 'Generate the draft'), h('p', { class: 'hint' }, 'Your language model writes the rules from the project’s active sources, its guidance and its tests. Each draft is compiled, its quotes are checked against the sources and the tests are run; what fails goes back to the model for up to three rounds of repair. The best draft becomes the project’s draft, passing or not.'), alert.el, form.form, budget.el, progress.el, outcome.el, h('h3', {}, 'Source questions'), questions.summary, questions.list);
    // One generation is watched at a time; run tells a stale poll or answer
    // from the current one.
    let run = 0;
    let watching = false;
    const setRunning = (on) => {
        progress.show(on);
        form.testButton.disabled = on;
        form.startButton.disabled = on;
    };
    const finish = async (st, result, focus) => {
        watching = false;
        setRunning(false);
        progress.reset();
        const o = outcomeOf(st, result ?? (st?.result || null));
        outcome.draw(o, focus ? finishedHeading[o.kind] : 'The last generation', focus);
        if (focus)
            announce(o.headline);
        await questions.load();
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
            progress.draw(st);
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
        outcome.el.hidden = true;
        setRunning(true);
        progress.reset('');
        if (st && isActive(st))
            progress.draw(st);
        else
            progress.reset('Starting the generation.');
        window.setTimeout(() => void poll(id, st === null || !isActive(st)), pollEvery);
        return id;
    };
    const refused = async (err) => {
        if (err instanceof StudioError && budget.show(err.body))
            return;
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
        budget.hide();
        const body = form.request();
        if (!body)
            return;
        if (!andTest) {
            let st;
            try {
                st = await client.call('POST', `${base}/generate`, body, form.takeKey());
            }
            catch (err) {
                await refused(err);
                return;
            }
            watch(st);
            progress.el.querySelector('h3')?.focus();
            return;
        }
        const id = watch(null);
        progress.el.querySelector('h3')?.focus();
        let answer;
        try {
            answer = await client.call('POST', `${base}/generate-and-test`, body, form.takeKey());
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
                progress.draw(answer);
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
    form.form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(form.testButton, () => start(true)).then(keepRunning);
    });
    form.startButton.addEventListener('click', () => void busy(form.startButton, () => start(false)).then(keepRunning));
    progress.cancelButton.addEventListener('click', () => {
        void (async () => {
            const job = progress.last?.job_id;
            if (!job)
                return;
            const sure = await confirmDialog('Cancel the generation?', [h('p', {}, 'The model’s work on this generation stops and is not kept. You can start another at once.')], 'Cancel the generation', 'Keep it running');
            if (!sure || !watching)
                return;
            try {
                const st = await busy(progress.cancelButton, () => client.call('POST', `${base}/generation/cancel`, { job_id: job }));
                run++;
                await finish(st, null, true);
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        })();
    });
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
    form.setModels(list?.models ?? []);
    if (status && isActive(status)) {
        watch(status);
        await questions.load();
    }
    else if (status?.job_id && status.state !== 'idle') {
        await finish(status, null, false);
    }
    else {
        await questions.load();
    }
}
