// Completion in the rules editor: what the language server proposes at
// the cursor (POST .../draft/complete, docs/authoring.md), in CodeMirror's
// completion list, a listbox the editor controls as a combobox does
// (aria-autocomplete, aria-controls, aria-activedescendant; arrows move,
// Enter inserts, Escape closes). A source is listed by its title and
// inserts its id, what the rules say; and each change of the list and of
// its chosen option is also said through the page's live region, since
// not every screen reader follows aria-activedescendant in a text area.
import { EditorView, completionStatus, currentCompletions, selectedCompletionIndex, } from '../../vendor/codemirror.js';
import { announce } from '../dom.js';
/** The kinds of proposal as CodeMirror marks them (its icons) and as a list read aloud names them. */
const kinds = {
    field: { type: 'variable', words: 'field' },
    source: { type: 'namespace', words: 'source' },
    group: { type: 'class', words: 'group' },
    value: { type: 'enum', words: 'value' },
    function: { type: 'function', words: 'function' },
    keyword: { type: 'keyword', words: 'keyword' },
    named_value: { type: 'constant', words: 'named value' },
};
/**
 * toCompletion shows a proposal in people's words: a source by its title
 * (its id beside it), anything else by the name the rules use with its
 * detail (a field's type, a function's signature); what is inserted is
 * always what the rules say, a function's name with its parenthesis.
 */
export function toCompletion(c) {
    const detail = c.detail.length > 60 ? c.detail.slice(0, 57) + '…' : c.detail;
    const kind = kinds[c.kind] ?? { type: 'text', words: c.kind };
    if (c.kind === 'source' && c.detail)
        return { label: c.label, displayLabel: c.detail, detail: c.label, type: kind.type, apply: c.insert_text };
    return { label: c.label, detail: detail || kind.words, type: kind.type, apply: c.kind === 'function' ? c.insert_text + '(' : c.insert_text };
}
/** positionOf is offset of the editor's text as the language server counts (line and UTF-16 character from 0). */
export function positionOf(ctx) {
    const line = ctx.state.doc.lineAt(ctx.pos);
    return { line: line.number - 1, character: ctx.pos - line.from };
}
/**
 * serverCompletion is the editor's completion source: on Ctrl+Space, the
 * language server's proposals at the cursor for the project's text as it
 * stands, for the word there. An answer the text has moved on from is
 * dropped.
 */
export function serverCompletion(client, projectId) {
    return async (ctx) => {
        const word = ctx.matchBefore(/"[^"\s]*|[A-Za-z_][A-Za-z0-9_.]*/);
        if (!ctx.explicit)
            return null;
        let items;
        try {
            ({ items } = await client.call('POST', `/projects/${encodeURIComponent(projectId)}/draft/complete`, { rules: ctx.state.doc.toString(), position: positionOf(ctx) }, {}, { background: true }));
        }
        catch {
            return null;
        }
        if (ctx.aborted || items.length === 0)
            return null;
        return { from: word ? word.from : ctx.pos, options: items.map(toCompletion), validFor: /^("[^"\s]*|[A-Za-z0-9_.]*)$/ };
    };
}
/** optionWords says an option as a list read aloud does: its label, then what it is. */
function optionWords(c) {
    return c.displayLabel ? `${c.displayLabel} (${c.detail ?? c.label})` : `${c.label}, ${c.detail ?? ''}`.replace(/, $/, '');
}
/** announceCompletions says when the list opens how many there are and which is chosen, and then each option chosen. */
export function announceCompletions() {
    let said = '';
    return EditorView.updateListener.of((u) => {
        const open = completionStatus(u.state) === 'active';
        const options = open ? currentCompletions(u.state) : [];
        const index = open ? selectedCompletionIndex(u.state) : null;
        const chosen = index === null ? undefined : options[index];
        const now = chosen ? `${options.length}:${index}:${chosen.label}` : '';
        if (now === said)
            return;
        const opened = said === '' || said.split(':')[0] !== String(options.length);
        said = now;
        if (!chosen || index === null)
            return;
        const where = `${index + 1} of ${options.length}`;
        announce(opened
            ? `${options.length === 1 ? '1 suggestion' : `${options.length} suggestions`}: ${optionWords(chosen)}, ${where}. Up and down arrows choose, Enter inserts, Escape closes.`
            : `${optionWords(chosen)}, ${where}`);
    });
}
