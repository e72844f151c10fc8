// A project's sources: the statute and policy texts its rules cite.
// Files are added by dropping them on the drop zone or choosing them with
// the file input (the keyboard's way), with the address they are published
// at and their licence; each source is listed with its status, and may be
// marked superseded or reference-only, or deleted (the API keeps a source
// a published ruleset cites, and says so).
import { announce, h } from '../dom.js';
import { safeLink } from '../links.js';
import { newIdempotencyKey } from './client.js';
import { sourceHref } from './routes.js';
import { alertBox, busy, confirmDialog, errorMessage, field, plural } from './ui.js';
/** The statuses a source can have, in words. */
const statusWords = {
    active: 'In use',
    superseded: 'Superseded',
    reference_only: 'Reference only',
};
/** What the file input offers: the media types the API reads, by extension and by type. */
const accepted = '.txt,.md,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf';
/** mediaWords names a media type for people. */
function mediaWords(t) {
    return { 'text/plain': 'Text', 'text/markdown': 'Markdown', 'text/html': 'Web page (HTML)', 'application/pdf': 'PDF' }[t] ?? t;
}
/** size writes a byte count in kB or MB. */
export function sizeWords(bytes) {
    if (bytes < 1000)
        return `${bytes} bytes`;
    if (bytes < 1_000_000)
        return `${(bytes / 1000).toFixed(1)} kB`;
    return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
/** sourcesView draws the sources screen of project into container. */
export async function sourcesView(client, projectId, container) {
    const base = `/projects/${encodeURIComponent(projectId)}/sources`;
    // Possible duplicates are reported by the upload only; the list keeps
    // those of this page's uploads.
    const duplicates = new Map();
    const list = h('ul', { class: 'sources', id: 'sources' });
    const summary = h('p', { id: 'sources-summary', class: 'count' }, 'Loading the sources…');
    const listAlert = alertBox('sources-error');
    const refresh = async () => {
        try {
            const got = await client.call('GET', base);
            summary.textContent = got.sources.length
                ? `${plural(got.sources.length, 'source')}; the sources in use come to about ${got.project_estimated_tokens.toLocaleString()} tokens of ${got.generation_token_budget.toLocaleString()} a generation can read.`
                : 'No sources yet: add the law the rules rest on.';
            list.replaceChildren(...got.sources.map((s) => sourceItem(s, got.sources)));
        }
        catch (err) {
            listAlert.show(errorMessage(err));
        }
    };
    const sourceItem = (s, all) => {
        const rowAlert = alertBox('source-error-' + s.source_id);
        const idBase = 'source-' + s.source_id;
        const status = h('select', { id: idBase + '-status' }, ...Object.keys(statusWords).map((v) => h('option', { value: v, selected: v === s.status }, statusWords[v])));
        const replacement = h('select', { id: idBase + '-by' }, h('option', { value: '' }, 'Not named'), ...all.filter((o) => o.source_id !== s.source_id).map((o) => h('option', { value: o.source_id, selected: o.source_id === s.superseded_by }, o.title || o.filename)));
        const byRow = h('div', { class: 'field inline', hidden: status.value !== 'superseded' }, h('label', { for: idBase + '-by' }, 'Replaced by'), replacement);
        status.addEventListener('change', () => (byRow.hidden = status.value !== 'superseded'));
        const save = h('button', { type: 'button', class: 'secondary' }, 'Save the status');
        save.setAttribute('aria-label', `Save the status of ${s.title || s.filename}`);
        save.addEventListener('click', () => {
            rowAlert.clear();
            void busy(save, async () => {
                try {
                    const body = { status: status.value };
                    if (status.value === 'superseded' && replacement.value)
                        body['superseded_by'] = replacement.value;
                    await client.call('PATCH', `${base}/${encodeURIComponent(s.source_id)}`, body);
                    announce(`${s.title || s.filename}: ${statusWords[status.value]}.`);
                    await refresh();
                    document.getElementById(idBase + '-status')?.focus();
                }
                catch (err) {
                    rowAlert.show(errorMessage(err));
                }
            });
        });
        const del = h('button', { type: 'button', class: 'danger' }, 'Delete');
        del.setAttribute('aria-label', `Delete ${s.title || s.filename}`);
        del.addEventListener('click', () => {
            rowAlert.clear();
            void (async () => {
                const ok = await confirmDialog(`Delete ${s.title || s.filename}?`, [h('p', {}, 'The file and its text are removed from the project. A source a published ruleset cites cannot be deleted; mark it superseded instead.')], 'Delete the source');
                if (!ok)
                    return;
                await busy(del, async () => {
                    try {
                        await client.call('DELETE', `${base}/${encodeURIComponent(s.source_id)}`);
                        announce(`${s.title || s.filename} deleted.`);
                        await refresh();
                        summary.focus();
                    }
                    catch (err) {
                        rowAlert.show(errorMessage(err));
                        del.focus();
                    }
                });
            })();
        });
        const dups = duplicates.get(s.source_id) ?? [];
        const link = safeLink(s.url);
        return h('li', { class: 'card source', id: idBase }, h('h3', {}, s.title || s.filename), h('p', {}, h('a', { href: sourceHref(projectId, s.source_id), class: 'source-text-link', 'aria-label': `Read the text and what cites it: ${s.title || s.filename}` }, 'Read the text and what cites it')), h('dl', { class: 'facts' }, h('div', {}, h('dt', {}, 'File'), h('dd', {}, s.filename)), h('div', {}, h('dt', {}, 'Kind'), h('dd', {}, mediaWords(s.media_type))), h('div', {}, h('dt', {}, 'Size'), h('dd', {}, sizeWords(s.size))), h('div', {}, h('dt', {}, 'Status'), h('dd', { class: 'source-status' }, statusWords[s.status])), h('div', {}, h('dt', {}, 'Licence'), h('dd', {}, s.licence || 'not given')), h('div', {}, h('dt', {}, 'Published at'), h('dd', {}, link ? h('a', { href: link, rel: 'noreferrer noopener', target: '_blank' }, s.url) : s.url || 'not given'))), 
        // The project's own id of the source is for programs and developers;
        // the rules name it by their own id (see the source's text).
        h('details', { class: 'for-developers' }, h('summary', {}, 'For developers'), h('p', {}, 'Source id ', h('code', {}, s.source_id))), dups.length
            ? h('div', { class: 'notice duplicates' }, h('p', {}, 'Possibly the same text as:'), h('ul', {}, ...dups.map((d) => h('li', {}, `${d.filename} (${d.kind === 'identical_bytes' ? 'the same file' : `${Math.round(d.resemblance * 100)}% alike`})`))))
            : null, h('div', { class: 'row source-actions' }, h('div', { class: 'field inline' }, h('label', { for: idBase + '-status' }, 'Status'), status), byRow, save, del), rowAlert.el);
    };
    container.append(h('h2', { tabindex: '-1' }, 'Sources'), uploadForm(client, base, duplicates, refresh), summary, listAlert.el, list);
    summary.setAttribute('tabindex', '-1');
    await refresh();
}
function uploadForm(client, base, duplicates, refresh) {
    const file = field('source-file', 'File', h('input', { type: 'file', accept: accepted, multiple: true }), 'Text, Markdown, HTML or PDF (with a text layer), up to 10 MB each.');
    const url = field('source-url', 'Published at (web address)', h('input', { type: 'url', class: 'wide', autocomplete: 'off', spellcheck: 'false' }), 'Where the official text is published; rules cite a source by this address.');
    const licence = field('source-licence', 'Licence', h('input', { type: 'text', class: 'narrow', autocomplete: 'off', list: 'licences' }), 'For example public-domain, OGL-3.0 or CC-BY-4.0.');
    const title = field('source-title', 'Title (optional)', h('input', { type: 'text', class: 'wide', autocomplete: 'off' }));
    const licences = h('datalist', { id: 'licences' }, ...['public-domain', 'OGL-3.0', 'CC-BY-4.0', 'CC0-1.0'].map((l) => h('option', { value: l })));
    const alert = alertBox('upload-error');
    const done = h('p', { id: 'upload-result', role: 'status' });
    const submit = h('button', { type: 'submit', id: 'upload' }, 'Add the files');
    const chosen = h('p', { class: 'hint', id: 'drop-chosen' }, 'No file chosen.');
    let dropped = [];
    const files = () => (dropped.length ? dropped : Array.from(file.control.files ?? []));
    const showChosen = () => {
        const f = files();
        chosen.textContent = f.length ? `Chosen: ${f.map((x) => x.name).join(', ')}` : 'No file chosen.';
    };
    file.control.addEventListener('change', () => {
        dropped = [];
        showChosen();
    });
    const zone = h('div', { class: 'dropzone', id: 'dropzone' }, h('p', {}, 'Drop files here, or choose them with the File field below.'), chosen);
    zone.addEventListener('dragover', (e) => {
        e.preventDefault();
        zone.classList.add('over');
    });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
        e.preventDefault();
        zone.classList.remove('over');
        dropped = Array.from(e.dataTransfer?.files ?? []);
        file.control.value = '';
        showChosen();
        announce(chosen.textContent ?? '');
    });
    const form = h('form', {
        id: 'upload-form',
        class: 'studio-form',
        'aria-labelledby': 'upload-heading',
        onsubmit: (e) => {
            e.preventDefault();
            alert.clear();
            done.textContent = '';
            const chosenFiles = files();
            file.setError(chosenFiles.length ? '' : 'Choose or drop at least one file.');
            const u = url.control.value.trim();
            url.setError(u && !/^https?:\/\/\S+$/i.test(u) ? 'Write the full address, starting http:// or https://.' : '');
            if (!chosenFiles.length || (u && !/^https?:\/\/\S+$/i.test(u))) {
                (chosenFiles.length ? url.control : file.control).focus();
                return;
            }
            void busy(submit, async () => {
                try {
                    let added = 0;
                    // One request per file, so each carries its own name and all
                    // carry the address and licence given.
                    for (const f of chosenFiles) {
                        const body = new FormData();
                        body.append('file', f, f.name);
                        if (u)
                            body.append('url', u);
                        if (licence.control.value.trim())
                            body.append('licence', licence.control.value.trim());
                        if (title.control.value.trim())
                            body.append('title', title.control.value.trim());
                        const got = await client.call('POST', base, body, { 'Idempotency-Key': newIdempotencyKey() });
                        for (const s of got.sources) {
                            added++;
                            if (s.possible_duplicates.length)
                                duplicates.set(s.source_id, s.possible_duplicates);
                        }
                    }
                    dropped = [];
                    form.reset();
                    showChosen();
                    done.textContent = `${plural(added, 'file')} added.`;
                    await refresh();
                }
                catch (err) {
                    alert.show(errorMessage(err));
                }
            });
        },
    }, h('h3', { id: 'upload-heading' }, 'Add sources'), zone, file.row, url.row, licence.row, licences, title.row, h('div', { class: 'buttons' }, submit), alert.el, done);
    return form;
}
