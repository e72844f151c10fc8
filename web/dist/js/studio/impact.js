// Impact on real applicants (docs/impact.md): beside the solver's example
// applicant, a run decides every applicant of a caseload (a file of their
// answers kept by the project) on the rules in force and on the proposal,
// and counts whom it moves. The panel chooses or uploads a caseload,
// starts a run, follows its progress (with a live region and a cancel
// button), says its report in words, and lists the project's past runs.
// A caseload can also be made from the decisions the service made under
// one of the team's slugs, when answer logging keeps their answers
// (docs/impact.md#from-the-decision-log).
// The Changes screen runs the draft; the rulebook screen a promotion's
// proposed section (its candidate).
import { append, h } from '../dom.js';
import { StudioError } from './client.js';
import { outcomeWords } from './caseform.js';
import { alertBox, busy, errorMessage, plural, when } from './ui.js';
/** ended says whether a run has stopped for good. */
export function ended(state) {
    return state !== 'queued' && state !== 'running';
}
/** applicants says a count of applicants: "3 applicants", "1 applicant", or "fewer than 10 applicants". */
export function applicants(c) {
    if (c.count === null)
        return `fewer than ${c.fewer_than ?? 10} applicants`;
    return plural(c.count, 'applicant');
}
/** capital starts a sentence. */
function capital(s) {
    return s.charAt(0).toUpperCase() + s.slice(1);
}
/** outcome says an outcome inside a sentence ("not eligible"). */
function outcome(o) {
    return outcomeWords(o).toLowerCase();
}
/**
 * transitionSentence says one transition: "3 applicants who are not
 * eligible would become eligible", or "120 applicants would stay eligible".
 */
export function transitionSentence(t) {
    const who = applicants(t);
    if (t.from === t.to)
        return `${capital(who)} would stay ${outcome(t.from)}.`;
    const are = t.count === 1 ? 'is' : 'are';
    return `${capital(who)} who ${are} ${outcome(t.from)} would become ${outcome(t.to)}.`;
}
/** summarySentence says how many of the applicants decided would get another outcome. */
export function summarySentence(r) {
    if (r.cases.count === 0)
        return 'No applicant of the file could be decided.';
    if (r.changed.count === 0)
        return `Out of ${applicants(r.cases)}, none would get another outcome.`;
    return `Out of ${applicants(r.cases)}, ${applicants(r.changed)} would get another outcome.`;
}
/** progressSentence says how far a run has got. */
export function progressSentence(run) {
    const p = run.progress;
    switch (run.state) {
        case 'queued':
            return `Waiting to start: ${plural(p.rows_total, 'row')} to decide.`;
        case 'running':
            return `Deciding: ${p.rows_done} of ${plural(p.rows_total, 'row')} done.`;
        case 'succeeded':
            return `Done: ${p.rows_done} of ${plural(p.rows_total, 'row')} decided.`;
        case 'cancelled':
            return `Cancelled after ${p.rows_done} of ${plural(p.rows_total, 'row')}.`;
        default:
            return `Stopped after ${p.rows_done} of ${plural(p.rows_total, 'row')}.`;
    }
}
/** uploadQuery is the query of a caseload upload of a file named name: its name and format. */
export function uploadQuery(name) {
    const csv = name.toLowerCase().endsWith('.csv');
    const q = new URLSearchParams({ filename: name, format: csv ? 'csv' : 'jsonl' });
    return { query: '?' + q.toString(), contentType: csv ? 'text/csv' : 'application/x-ndjson' };
}
/** loggingPath is the answer logging setting of slug (docs/decision-records.md#answer-logging). */
export function loggingPath(kind, slug) {
    return `/${kind}s/${encodeURIComponent(slug)}/answer-logging`;
}
/** fieldsWords lists field names in a sentence: "a", "a and b", "a, b and c". */
function fieldsWords(names) {
    return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
/**
 * loggingSentence says whether the decisions under slug are kept: for how
 * long and without which answers when they are, and who can change that
 * when they are not (setting null: answer logging is off).
 */
export function loggingSentence(kind, slug, setting) {
    if (!setting) {
        return `Decisions under ${slug} are not being kept; an administrator can turn answer logging on for the ${kind} (PUT ${loggingPath(kind, slug)}), and the decisions your team’s keys make from then on can make a file of applicants.`;
    }
    const left = [
        setting.dropped.length ? `${fieldsWords(setting.dropped)} left out` : '',
        setting.masked.length ? `the answers to ${fieldsWords(setting.masked)} hidden (those applicants are counted as undecided)` : '',
    ].filter(Boolean);
    return `The answers of decisions your team’s keys make under ${slug} are kept for ${plural(setting.retention_days, 'day')}${left.length ? `, with ${left.join(' and ')}` : ''}.`;
}
/** nextDay is the day after a YYYY-MM-DD date, as one. */
function nextDay(date) {
    const d = new Date(date + 'T00:00:00Z');
    d.setUTCDate(d.getUTCDate() + 1);
    return d.toISOString().slice(0, 10);
}
/**
 * logPeriod is the period of decisions from the day from to the day to,
 * both included (days in UTC, as decisions are dated): since is the first
 * day's start, until the start of the day after the last. Either may be
 * empty for no bound; a period that ends before it starts is an error.
 */
export function logPeriod(from, to) {
    if (from && to && to < from)
        return { error: 'The period ends before it starts: choose a “to” day on or after the “from” day.' };
    const out = {};
    if (from)
        out.since = from + 'T00:00:00Z';
    if (to)
        out.until = nextDay(to) + 'T00:00:00Z';
    return out;
}
/** fromLogSentence says what a caseload made from the log holds. */
export function fromLogSentence(c, slug) {
    if (c.rows === 0)
        return `Made ${c.filename}: no decision under ${slug} was kept in that period, so it holds no applicant.`;
    const unread = c.rows - c.cases;
    return `Made ${c.filename} from ${plural(c.rows, 'decision')} under ${slug}: ${plural(c.cases, 'applicant')}${unread ? ` and ${plural(unread, 'row')} that cannot be read` : ''}.`;
}
/** fromLogRefusal says why a caseload could not be made from the log: the API's words, with what to do about them. */
export function fromLogRefusal(kind, status, message) {
    if (status === 404)
        return `${message} Decisions are read only under a ${kind} your team publishes.`;
    if (status === 413)
        return `Too many decisions for one file: ${message}`;
    return message;
}
/** reasonList draws one list of reasons with their counts and, when the key may see them, line numbers. */
function reasonList(id, title, reasons) {
    if (!reasons.length)
        return null;
    return h('section', { 'aria-labelledby': id + '-heading' }, h('h5', { id: id + '-heading' }, title), h('ul', { id }, ...reasons.map((r) => h('li', {}, `${capital(r.reason)}: ${applicants(r)}`, r.lines.length ? ` (lines ${r.lines.join(', ')})` : '', '.'))));
}
/** itemList draws the criteria or named values that changed, each with how many applicants it changed for. */
function itemList(id, title, items) {
    if (!items.length)
        return null;
    return h('section', { 'aria-labelledby': id + '-heading' }, h('h5', { id: id + '-heading' }, title), h('ul', { class: id }, ...items.map((c) => h('li', {}, h('code', {}, c.id), `: for ${applicants(c)}.`))));
}
/** reportView draws a run's report in words. */
export function reportView(run) {
    const out = h('div', { class: 'impact-report' });
    if (run.state === 'failed' && run.error)
        append(out, h('p', { class: 'notice' }, `The run failed: ${run.error}.`));
    const r = run.report;
    if (!r) {
        if (run.state === 'cancelled')
            append(out, h('p', {}, 'The run was cancelled before it decided anyone.'));
        return out;
    }
    const changed = r.transitions.filter((t) => t.from !== t.to);
    const same = r.transitions.filter((t) => t.from === t.to);
    const examples = (t) => (t.examples.length ? h('span', { class: 'hint' }, ` For example: ${t.examples.join(', ')}.`) : null);
    append(out, run.partial ? h('p', { class: 'notice' }, 'This covers only the applicants decided before the run was stopped.') : null, h('p', { class: 'count impact-summary' }, summarySentence(r)), changed.length ? h('ul', { class: 'impact-transitions', 'aria-label': 'Applicants whose outcome would change' }, ...changed.map((t) => h('li', {}, h('strong', {}, transitionSentence(t)), examples(t)))) : null, same.length ? h('ul', { class: 'impact-unchanged', 'aria-label': 'Applicants whose outcome would stay' }, ...same.map((t) => h('li', {}, transitionSentence(t), examples(t)))) : null, itemList('impact-criteria', 'Criteria decided differently most often', r.criteria), itemList('impact-values', 'Figures that came out differently most often', r.values), reasonList('impact-bad-rows', 'Rows that could not be read', r.bad_rows), reasonList('impact-unread', 'Answers the rules do not read', r.unread_answers), reasonList('impact-undecided', 'Applicants left undecided for another reason than the rules', r.undecided));
    return out;
}
/** impactPanel draws the impact panel: choose or upload a caseload, run, follow, read. */
export function impactPanel(client, opts) {
    const base = `/projects/${encodeURIComponent(opts.projectId)}`;
    const alert = alertBox('impact-error');
    const select = h('select', { id: 'impact-caseload' });
    const file = h('input', { type: 'file', id: 'impact-file', accept: '.jsonl,.ndjson,.json,.csv,text/csv,application/x-ndjson', 'aria-describedby': 'impact-file-hint' });
    const upload = h('button', { type: 'button', class: 'secondary', id: 'impact-upload' }, 'Upload');
    const start = h('button', { type: 'button', id: 'impact-start' }, 'Run on these applicants');
    const cancel = h('button', { type: 'button', class: 'secondary', id: 'impact-cancel', hidden: true }, 'Cancel the run');
    const meter = h('progress', { id: 'impact-meter', max: '1', value: '0', 'aria-labelledby': 'impact-progress', hidden: true });
    const status = h('p', { id: 'impact-progress', role: 'status', 'aria-live': 'polite' });
    const result = h('section', { id: 'impact-result', tabindex: '-1', 'aria-labelledby': 'impact-result-heading', hidden: true });
    const past = h('ul', { id: 'impact-runs', class: 'plain' });
    const logSlug = h('input', { type: 'text', id: 'impact-log-slug', class: 'wide', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'impact-log-state' });
    const logFrom = h('input', { type: 'date', id: 'impact-log-from', 'aria-describedby': 'impact-log-period-hint' });
    const logTo = h('input', { type: 'date', id: 'impact-log-to', 'aria-describedby': 'impact-log-period-hint' });
    const logState = h('p', { id: 'impact-log-state', 'aria-live': 'polite' });
    const logMake = h('button', { type: 'button', class: 'secondary', id: 'impact-log-make', 'aria-describedby': 'impact-log-state', disabled: true }, 'Make a file from these decisions');
    let caseloads = [];
    let current = '';
    const loadCaseloads = async (choose) => {
        caseloads = (await client.call('GET', `${base}/caseloads`)).caseloads;
        select.replaceChildren(...caseloads.map((c) => h('option', { value: c.caseload_id }, `${c.filename}: ${plural(c.cases, 'applicant')}${c.bad_rows.length ? ', with rows that cannot be read' : ''} (uploaded ${when(c.created_at)})`)));
        if (choose)
            select.value = choose;
        start.disabled = caseloads.length === 0;
    };
    const show = (run) => {
        result.replaceChildren(h('h4', { id: 'impact-result-heading' }, `Run of ${when(run.created_at)}`), h('p', {}, progressSentence(run)), reportView(run));
        result.hidden = false;
    };
    const loadRuns = async () => {
        const runs = (await client.call('GET', `${base}/impact`)).runs;
        past.replaceChildren(...runs.map((run) => {
            const open = h('button', { type: 'button', class: 'link' }, `Run of ${when(run.created_at)}`);
            open.addEventListener('click', () => {
                void busy(open, async () => {
                    alert.clear();
                    try {
                        show(await client.call('GET', `${base}/impact/${encodeURIComponent(run.run_id)}`));
                        result.focus();
                    }
                    catch (err) {
                        alert.show(errorMessage(err));
                    }
                });
            });
            return h('li', {}, open, ` ${run.rulebook ? 'rulebook, ' : ''}${run.state}: ${progressSentence(run)}`);
        }));
        if (!runs.length)
            past.replaceChildren(h('li', { class: 'hint' }, 'No run yet.'));
    };
    const follow = async (run) => {
        current = run.run_id;
        cancel.hidden = false;
        meter.hidden = false;
        while (!ended(run.state)) {
            status.textContent = progressSentence(run);
            meter.max = Math.max(run.progress.rows_total, 1);
            meter.value = run.progress.rows_done;
            await new Promise((r) => setTimeout(r, 500));
            run = await client.call('GET', `${base}/impact/${encodeURIComponent(run.run_id)}`);
        }
        current = '';
        cancel.hidden = true;
        meter.hidden = true;
        status.textContent = progressSentence(run);
        show(run);
        result.focus();
        await loadRuns();
    };
    upload.addEventListener('click', () => {
        void busy(upload, async () => {
            alert.clear();
            const f = file.files?.[0];
            if (!f) {
                alert.show('Choose a file of applicants first: JSON Lines (one applicant per line) or CSV.');
                file.focus();
                return;
            }
            try {
                const q = uploadQuery(f.name);
                const c = await client.call('POST', `${base}/caseloads${q.query}`, f, { 'Content-Type': q.contentType });
                await loadCaseloads(c.caseload_id);
                status.textContent = `Uploaded ${c.filename}: ${plural(c.cases, 'applicant')}${c.bad_rows.length ? ` and ${plural(c.rows - c.cases, 'row')} that cannot be read` : ''}.`;
                file.value = '';
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        });
    });
    // Whether the slug's decisions are kept: the button works only when they are.
    let checked = '';
    let loggingOn = false;
    const checkLogging = async () => {
        const slug = logSlug.value.trim();
        if (slug === checked)
            return;
        checked = slug;
        loggingOn = false;
        logMake.disabled = true;
        if (!slug) {
            logState.textContent = `Give the address of a ${opts.log.kind} your team publishes.`;
            return;
        }
        logState.textContent = `Finding out whether decisions under ${slug} are kept…`;
        let text;
        let on = false;
        try {
            text = loggingSentence(opts.log.kind, slug, await client.call('GET', loggingPath(opts.log.kind, slug)));
            on = true;
        }
        catch (err) {
            // The API's own words say which: off, or no slug of the team's.
            text = err instanceof StudioError && err.status === 404 ? `${loggingSentence(opts.log.kind, slug, null)} ${errorMessage(err)}` : `Could not find out whether decisions under ${slug} are kept: ${errorMessage(err)}`;
        }
        if (checked !== slug)
            return; // the author named another slug meanwhile
        logState.textContent = text;
        loggingOn = on;
        logMake.disabled = !on;
    };
    logSlug.addEventListener('change', () => void checkLogging());
    logMake.addEventListener('click', () => {
        void busy(logMake, async () => {
            alert.clear();
            const slug = logSlug.value.trim();
            const period = logPeriod(logFrom.value, logTo.value);
            if (period.error) {
                alert.show(period.error);
                logFrom.focus();
                return;
            }
            const body = { slug, kind: opts.log.kind };
            if (period.since)
                body.since = period.since;
            if (period.until)
                body.until = period.until;
            try {
                const c = await client.call('POST', `${base}/caseloads/from-log`, body);
                await loadCaseloads(c.caseload_id);
                status.textContent = fromLogSentence(c, slug);
            }
            catch (err) {
                alert.show(err instanceof StudioError ? fromLogRefusal(opts.log.kind, err.status, err.message) : errorMessage(err));
            }
        }).then(() => {
            logMake.disabled = !loggingOn; // the slug may have changed meanwhile
        });
    });
    start.addEventListener('click', () => {
        void busy(start, async () => {
            alert.clear();
            if (!select.value) {
                alert.show('Choose or upload a file of applicants first.');
                return;
            }
            const body = { caseload_id: select.value };
            const cand = opts.candidate();
            if (cand)
                body.candidate = cand;
            try {
                await follow(await client.call('POST', `${base}/impact`, body));
            }
            catch (err) {
                current = '';
                cancel.hidden = true;
                meter.hidden = true;
                alert.show(errorMessage(err));
            }
        });
    });
    cancel.addEventListener('click', () => {
        if (!current)
            return;
        void busy(cancel, async () => {
            try {
                await client.call('POST', `${base}/impact/${encodeURIComponent(current)}/cancel`);
                status.textContent = 'Cancelling…';
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        });
    });
    const panel = h('section', { id: 'impact', class: 'studio-form', 'aria-labelledby': 'impact-heading' }, h('h3', { id: 'impact-heading' }, 'Real applicants'), h('p', { class: 'hint' }, opts.describe), h('div', { class: 'field' }, h('label', { for: 'impact-caseload' }, 'Applicants'), select), h('div', { class: 'field' }, h('label', { for: 'impact-file' }, 'Upload a file of applicants'), h('p', { class: 'hint', id: 'impact-file-hint' }, 'JSON Lines (one applicant’s answers per line) or CSV (a column per question). The file is kept with the project; no one sees its answers, only counts.'), file, upload), h('section', { id: 'impact-log', class: 'impact-log', 'aria-labelledby': 'impact-log-heading' }, h('h4', { id: 'impact-log-heading' }, 'Or make a file from the decisions made'), h('p', { class: 'hint' }, `The answers of the decisions your team’s keys made under one of its ${opts.log.kind}s, as answer logging kept them. No one sees the answers, only counts.`), h('div', { class: 'field' }, h('label', { for: 'impact-log-slug' }, 'Decisions under'), logSlug), h('p', { class: 'hint', id: 'impact-log-period-hint' }, 'Days in UTC, both included; leave a day empty for every decision kept before or after.'), h('div', { class: 'inline' }, h('label', { for: 'impact-log-from' }, 'From'), logFrom, h('label', { for: 'impact-log-to' }, 'to'), logTo), logState, logMake), h('div', { class: 'buttons' }, start, cancel), meter, status, alert.el, result, h('section', { 'aria-labelledby': 'impact-runs-heading' }, h('h4', { id: 'impact-runs-heading' }, 'Past runs'), past));
    start.disabled = true;
    void Promise.all([loadCaseloads(), loadRuns()]).catch((err) => alert.show(errorMessage(err)));
    void opts.log
        .slug()
        .then((slug) => {
        if (!logSlug.value)
            logSlug.value = slug;
        return checkLogging();
    })
        .catch((err) => (logState.textContent = `Could not read the address decisions are made under: ${errorMessage(err)}`));
    return panel;
}
