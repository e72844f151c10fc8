// The draft editor: the rules text in CodeMirror with the rules language
// highlighted, completion of the draft's declared ids and the language's
// functions, the compiler's errors and the draft's warnings shown at their
// line and column, save with Ctrl/Cmd-S or the button, and the versions
// saved in this session, each to compare with the editor's text or to
// bring back.

import {
  EditorState,
  EditorView,
  autocompletion,
  bracketMatching,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
  defaultKeymap,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSelectionMatches,
  history,
  historyKeymap,
  keymap,
  lineNumbers,
  lintGutter,
  lintKeymap,
  searchKeymap,
  setDiagnostics,
  type Completion,
  type CompletionContext,
  type CompletionResult,
  type Diagnostic,
} from '../../vendor/codemirror.js';
import { announce, h } from '../dom.js';
import { StudioError, type StudioClient } from './client.js';
import { describePlaced, placeCompileErrors, placeDiagnostics, type Placed } from './diagnostics.js';
import { formatRules } from './format.js';
import { criterionLine, lineParam } from './jump.js';
import { VersionHistory, type Version } from './history.js';
import { diffSummary, lineDiff } from './linediff.js';
import { sourceHref } from './routes.js';
import { rulesLanguage } from './ruleslang.js';
import { allSymbols } from './symbols.js';
import type { Draft, DraftSymbols } from './types.js';
import { alertBox, busy, errorMessage, plural } from './ui.js';

/** loadDraft reads the project's draft; null before the first one (409 no_draft). */
export async function loadDraft(client: StudioClient, projectId: string): Promise<Draft | null> {
  try {
    return await client.call<Draft>('GET', `/projects/${encodeURIComponent(projectId)}/draft`);
  } catch (err) {
    if (err instanceof StudioError && err.status === 409) return null;
    throw err;
  }
}

/** toDiagnostics places problems in the editor's document (CodeMirror offsets). */
function toDiagnostics(state: EditorState, placed: Placed[]): Diagnostic[] {
  return placed.map((p) => {
    const line = state.doc.line(Math.min(Math.max(p.line, 1), state.doc.lines));
    let from = Math.min(line.from + Math.max(p.column, 1) - 1, line.to);
    if (from === line.to && line.length > 0) from = line.to - 1;
    const rest = state.doc.sliceString(from, line.to);
    const word = /^[A-Za-z0-9_.]+/.exec(rest);
    const to = Math.min(line.to, from + (word ? word[0].length : 1));
    return { from, to, severity: p.severity, message: p.message };
  });
}

/** loadSymbols reads what the saved draft declares; null when there is no draft or the answer fails (completion then reads the text alone). */
async function loadSymbols(client: StudioClient, projectId: string): Promise<DraftSymbols | null> {
  try {
    return await client.call<DraftSymbols>('GET', `/projects/${encodeURIComponent(projectId)}/draft/symbols`);
  } catch {
    return null;
  }
}

/** completeRules makes the completion source: the draft's ids, then the language's functions and keywords, for the word at the cursor. */
const completeRules = (saved: () => DraftSymbols | null) => (ctx: CompletionContext): CompletionResult | null => {
  const word = ctx.matchBefore(/[a-z_][a-z0-9_.]*/);
  if (!word || (word.from === word.to && !ctx.explicit)) return null;
  const options: Completion[] = allSymbols(ctx.state.doc.toString(), saved()).map((s) => ({
    label: s.label,
    type: s.kind === 'field' ? 'variable' : s.kind === 'function' ? 'function' : s.kind === 'keyword' ? 'keyword' : 'constant',
    detail: s.detail ? (s.detail.length > 60 ? s.detail.slice(0, 57) + '…' : s.detail) : s.kind,
    apply: s.kind === 'function' ? s.label + '(' : s.label,
  }));
  return { from: word.from, options, validFor: /^[a-z0-9_.]*$/ };
};

/** draftSummary says what the last answer found, in a sentence. */
function draftSummary(d: Draft): string {
  const parts = [d.compiles ? 'The rules compile.' : `The rules do not compile: ${plural(d.compile_errors.length, 'error')}.`];
  if (d.acceptance.tests_total > 0) parts.push(`${d.acceptance.tests_passing} of ${plural(d.acceptance.tests_total, 'test')} pass.`);
  const flagged = d.provenance_report.totals.flagged;
  if (flagged > 0) parts.push(`${plural(flagged, 'quote')} not found in ${flagged === 1 ? 'its source' : 'their sources'}.`);
  return parts.join(' ');
}

/** quoteState says, in brackets, whether a quote of the saved draft was found in its source. */
function quoteState(q: Draft['provenance_report']['quotes'][number]): string {
  if (!q.project_source_id) return '(its source is not one of the project’s sources)';
  if (q.verified) return '(found in its source)';
  return q.nearest_passage ? '(not found word for word; a passage is near)' : '(not found in its source)';
}

/**
 * editorView draws the draft editor of project into container. params may
 * open it at a place: line (a line number), or criterion (with quote, at
 * its cite of that quote).
 */
export async function editorView(client: StudioClient, projectId: string, container: HTMLElement, params: Record<string, string> = {}): Promise<void> {
  const path = `/projects/${encodeURIComponent(projectId)}/draft`;
  const alert = alertBox('draft-error');
  const status = h('p', { id: 'draft-status', role: 'status', class: 'draft-status' }, 'Loading the rules…');
  const problems = h('ul', { id: 'problems', class: 'problems' });
  const problemsHeading = h('h3', { id: 'problems-heading' }, 'Problems');
  const quotes = h('ul', { id: 'quotes', class: 'quotes' });
  const quotesHeading = h('h3', { id: 'quotes-heading' }, 'Quotes');
  const versions = new VersionHistory();
  const versionList = h('ul', { id: 'versions', class: 'versions' });
  const compare = h('section', { id: 'compare', class: 'compare', 'aria-labelledby': 'compare-heading', hidden: true });
  const save = h('button', { type: 'button', id: 'save-draft' }, 'Save');
  const format = h('button', { type: 'button', id: 'format-draft', class: 'secondary' }, 'Format');
  const host = h('div', { class: 'editor', id: 'rules-editor' });

  container.append(
    h('h2', { tabindex: '-1' }, 'Rules'),
    h('p', { class: 'hint', id: 'editor-hint' }, 'Write the rules in the Eligo rules language. Ctrl+S (⌘S on a Mac) saves; Ctrl+Space lists the fields and functions you can use; Tab leaves the editor.'),
    h('div', { class: 'buttons toolbar' }, save, format),
    status,
    alert.el,
    h('p', { class: 'editor-label', id: 'editor-label' }, 'Rules text'),
    host,
    h('section', { 'aria-labelledby': 'problems-heading' }, problemsHeading, problems),
    h('section', { 'aria-labelledby': 'quotes-heading' }, quotesHeading, quotes),
    h('section', { 'aria-labelledby': 'versions-heading' }, h('h3', { id: 'versions-heading' }, 'Versions saved this session'), versionList, compare),
  );

  let draft: Draft | null;
  let symbols: DraftSymbols | null = null;
  try {
    [draft, symbols] = await Promise.all([loadDraft(client, projectId), loadSymbols(client, projectId)]);
  } catch (err) {
    status.textContent = 'The rules could not be loaded.';
    alert.show(errorMessage(err));
    return;
  }

  const view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc: draft?.rules ?? '',
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        rulesLanguage(),
        autocompletion({ override: [completeRules(() => symbols)] }),
        lintGutter(),
        keymap.of([
          { key: 'Mod-s', run: () => (void doSave(), true), preventDefault: true },
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...historyKeymap,
          ...searchKeymap,
          ...completionKeymap,
          ...lintKeymap,
        ]),
        EditorView.contentAttributes.of({ 'aria-labelledby': 'editor-label', 'aria-describedby': 'editor-hint', 'aria-multiline': 'true' }),
        EditorView.lineWrapping,
      ],
    }),
  });

  /** show puts a draft answer's problems in the editor and in the list below it. */
  const show = (d: Draft): void => {
    const placed = placeDiagnostics(view.state.doc.toString(), d);
    view.dispatch(setDiagnostics(view.state, toDiagnostics(view.state, placed)));
    problemsHeading.textContent = placed.length ? `Problems (${placed.length})` : 'Problems';
    problems.replaceChildren(
      ...(placed.length
        ? placed.map((p) =>
            h(
              'li',
              { class: p.severity },
              h(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  onclick: () => {
                    const at = toDiagnostics(view.state, [p])[0];
                    if (at) view.dispatch({ selection: { anchor: at.from, head: at.to }, scrollIntoView: true });
                    view.focus();
                  },
                },
                describePlaced(p),
              ),
              p.fix ? fixButton(p.fix) : null,
            ),
          )
        : [h('li', { class: 'none' }, 'None found in the last saved version.')]),
    );
    showQuotes(d);
    status.textContent = draftSummary(d);
  };

  /** showQuotes lists the saved draft's quotes, each leading to its passage in its source. */
  const showQuotes = (d: Draft): void => {
    const qs = d.provenance_report.quotes;
    quotesHeading.textContent = qs.length ? `Quotes (${qs.length})` : 'Quotes';
    quotes.replaceChildren(
      ...(qs.length
        ? qs.map((q) =>
            h(
              'li',
              {},
              `Criterion ${q.criterion_id}: “${q.quote}” `,
              h('span', { class: 'quote-state' }, quoteState(q)),
              ' ',
              q.project_source_id && (q.verified || q.nearest_passage)
                ? h(
                    'a',
                    { href: sourceHref(projectId, q.project_source_id, { criterion: q.criterion_id, quote: q.quote }), class: 'show-in-source', 'aria-label': `Show in source: criterion ${q.criterion_id}, “${q.quote}”` },
                    'Show in source',
                  )
                : null,
            ),
          )
        : [h('li', { class: 'none' }, 'The saved rules quote no source.')]),
    );
  };

  /** fixButton applies a fix the API suggests: the first occurrence of its text is replaced, to be saved. */
  const fixButton = (fix: NonNullable<Placed['fix']>): HTMLElement =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        onclick: () => {
          const at = view.state.doc.toString().indexOf(fix.find);
          if (at < 0) {
            announce('That text is no longer in the editor.');
            return;
          }
          view.dispatch({ changes: { from: at, to: at + fix.find.length, insert: fix.replace }, selection: { anchor: at, head: at + fix.replace.length }, scrollIntoView: true });
          status.textContent = 'The quote now has the source’s words, not yet saved.';
          announce(status.textContent);
          view.focus();
        },
      },
      fix.label,
    );

  const drawVersions = (): void => {
    versionList.replaceChildren(
      ...versions.list().map((v) =>
        h(
          'li',
          {},
          h('span', {}, v.n === 0 ? `As opened, ${v.savedAt.toLocaleTimeString()}` : `Version ${v.n}, saved ${v.savedAt.toLocaleTimeString()}`),
          h('button', { type: 'button', class: 'secondary small', 'aria-label': `Compare ${versionName(v)} with the editor`, onclick: () => showCompare(v) }, 'Compare'),
          h('button', { type: 'button', class: 'secondary small', 'aria-label': `Restore ${versionName(v)}`, onclick: () => restore(v) }, 'Restore'),
        ),
      ),
    );
  };

  const versionName = (v: Version): string => (v.n === 0 ? 'the version as opened' : `version ${v.n}`);

  const showCompare = (v: Version): void => {
    const lines = lineDiff(v.rules, view.state.doc.toString());
    const heading = h('h4', { id: 'compare-heading', tabindex: '-1' }, `Changes from ${versionName(v)} to the editor’s text`);
    compare.replaceChildren(
      heading,
      h('p', { id: 'compare-summary' }, diffSummary(lines)),
      h(
        'ol',
        { class: 'diff', 'aria-label': 'Line by line', tabindex: '0' },
        ...lines.map((l) =>
          h(
            'li',
            { class: 'diff-' + l.kind },
            h('span', { class: 'visually-hidden' }, l.kind === 'added' ? 'Added: ' : l.kind === 'removed' ? 'Removed: ' : 'Unchanged: '),
            h('span', { class: 'diff-mark', 'aria-hidden': 'true' }, l.kind === 'added' ? '+' : l.kind === 'removed' ? '−' : ' '),
            h('code', {}, l.text || ' '),
          ),
        ),
      ),
      h('button', { type: 'button', class: 'secondary', onclick: () => ((compare.hidden = true), view.focus()) }, 'Close the comparison'),
    );
    compare.hidden = false;
    heading.focus();
  };

  const restore = (v: Version): void => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: v.rules } });
    announce(`${versionName(v)} is back in the editor; save to keep it.`);
    status.textContent = `${versionName(v).replace(/^./, (c) => c.toUpperCase())} is back in the editor, not yet saved.`;
    view.focus();
  };

  async function doSave(): Promise<void> {
    alert.clear();
    await busy(save, async () => {
      const rules = view.state.doc.toString();
      try {
        status.textContent = 'Saving…';
        const d = await client.call<Draft>('PUT', path, { rules });
        symbols = await loadSymbols(client, projectId);
        versions.record(rules, new Date());
        drawVersions();
        show(d);
        announce('Saved. ' + status.textContent);
      } catch (err) {
        status.textContent = 'Not saved.';
        alert.show(errorMessage(err));
      }
    });
  }

  save.addEventListener('click', () => void doSave());
  format.addEventListener('click', () => {
    alert.clear();
    void busy(format, async () => {
      try {
        const text = view.state.doc.toString();
        const got = await formatRules(client, projectId, text);
        if (!got.ok) {
          // No canonical layout for a text that does not parse: show why, where.
          view.dispatch(setDiagnostics(view.state, toDiagnostics(view.state, placeCompileErrors(got.compileErrors))));
          alert.show(got.message);
          return;
        }
        if (got.formatted.changed) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: got.formatted.rules } });
        status.textContent = got.formatted.changed ? 'Formatted in the canonical layout, not yet saved.' : 'Already in the canonical layout.';
        announce(status.textContent);
      } catch (err) {
        alert.show(errorMessage(err));
      }
    });
  });
  // Ctrl/Cmd-S anywhere on this screen saves, not the browser's "save page".
  container.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== 's') return;
    // The editor's own keymap has saved already when it had the key.
    const handled = e.defaultPrevented;
    e.preventDefault();
    if (!handled) void doSave();
  });

  versions.record(view.state.doc.toString(), new Date());
  drawVersions();
  if (draft) show(draft);
  else status.textContent = 'No rules yet: write the first version and save it.';

  // Opened at a place (from a source's text): the cursor goes to its line.
  const text = view.state.doc.toString();
  const line = params['criterion'] !== undefined ? criterionLine(text, params['criterion'], params['quote'], symbols) : lineParam(params['line']);
  if (line > 0 && line <= view.state.doc.lines) {
    const at = view.state.doc.line(line);
    view.dispatch({ selection: { anchor: at.from }, scrollIntoView: true });
    view.focus();
    announce(params['criterion'] !== undefined ? `Criterion ${params['criterion']}, line ${line}.` : `Line ${line}.`);
  } else if (params['criterion'] !== undefined) {
    alert.show(`Criterion ${params['criterion']} is not in the saved rules.`);
  }
}
