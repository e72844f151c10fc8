// The draft editor: the rules text (rulesview.ts) checked and completed as
// it is typed by the language server's own code through the API
// (livecheck.ts, completion.ts), its problems shown at their place and
// listed (problems.ts) with the saved draft's warnings about its sources,
// save with Ctrl/Cmd-S or the button, format, the saved draft's quotes
// (quotesview.ts), and the versions saved in this session, each to compare
// with the editor's text or to bring back (versionsview.ts).

import { EditorView, setDiagnostics } from '../../vendor/codemirror.js';
import { announce, h } from '../dom.js';
import { loadDraft, type StudioClient } from './client.js';
import { announceCompletions, serverCompletion } from './completion.js';
import { placeCompileErrors, problemsOf, type DraftCheck, type Placed } from './diagnostics.js';
import { formatRules } from './format.js';
import { criterionLine, lineParam } from './jump.js';
import { LiveCheck, serverCheck } from './livecheck.js';
import { ProblemsList, toDiagnostics } from './problems.js';
import { QuotesList } from './quotesview.js';
import { rulesView } from './rulesview.js';
import type { Draft, DraftSymbols } from './types.js';
import { alertBox, busy, errorMessage, plural } from './ui.js';
import { VersionsList } from './versionsview.js';

/** loadSymbols reads what the saved draft declares, to open the editor at a criterion; null when that fails (the text is searched instead). */
async function loadSymbols(client: StudioClient, projectId: string): Promise<DraftSymbols | null> {
  try {
    return await client.call<DraftSymbols>('GET', `/projects/${encodeURIComponent(projectId)}/draft/symbols`);
  } catch {
    return null;
  }
}

/** draftSummary says what the last save found, in a sentence. */
function draftSummary(d: Draft): string {
  const parts = [d.compiles ? 'The rules compile.' : `The rules do not compile: ${plural(d.compile_errors.length, 'error')}.`];
  if (d.acceptance.tests_total > 0) parts.push(`${d.acceptance.tests_passing} of ${plural(d.acceptance.tests_total, 'test')} pass.`);
  const flagged = d.provenance_report.totals.flagged;
  if (flagged > 0) parts.push(`${plural(flagged, 'quote')} not found in ${flagged === 1 ? 'its source' : 'their sources'}.`);
  return parts.join(' ');
}

/**
 * editorView draws the draft editor of project into container. params may
 * open it at a place: line (a line number), or criterion (with quote, at
 * its cite of that quote).
 */
export async function editorView(client: StudioClient, projectId: string, container: HTMLElement, params: Record<string, string> = {}): Promise<void> {
  const alert = alertBox('draft-error');
  const status = h('p', { id: 'draft-status', role: 'status', class: 'draft-status' }, 'Loading the rules…');
  const save = h('button', { type: 'button', id: 'save-draft' }, 'Save');
  const format = h('button', { type: 'button', id: 'format-draft', class: 'secondary' }, 'Format');
  const host = h('div', { class: 'editor', id: 'rules-editor' });
  const problems = new ProblemsList((fix) => fixButton(fix));
  const quotes = new QuotesList(projectId);
  const versions = new VersionsList(
    () => view.state.doc.toString(),
    (rules, said) => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: rules } });
      status.textContent = said;
    },
    () => view.focus(),
  );
  container.append(
    h('h2', { tabindex: '-1' }, 'Rules'),
    h('p', { class: 'hint', id: 'editor-hint' }, 'Write the rules in the Eligo rules language; problems show as you type. Ctrl+S (⌘S on a Mac) saves; Ctrl+Space lists what fits where the cursor is (after cite, the project’s sources); Tab leaves the editor.'),
    h('div', { class: 'buttons toolbar' }, save, format),
    status,
    alert.el,
    h('p', { class: 'editor-label', id: 'editor-label' }, 'Rules text'),
    host,
    problems.section,
    quotes.section,
    versions.section,
  );

  let draft: Draft | null;
  try {
    draft = await loadDraft(client, projectId);
  } catch (err) {
    status.textContent = 'The rules could not be loaded.';
    alert.show(errorMessage(err));
    return;
  }

  // The latest check's answer, with the text it is about.
  let checked: { text: string; check: DraftCheck } | null = null;
  const live = new LiveCheck(
    serverCheck(client, projectId),
    () => view.state.doc.toString(),
    (check, text) => {
      checked = { text, check };
      showProblems();
    },
  );
  const view: EditorView = rulesView(host, {
    doc: draft?.rules ?? '',
    labelledBy: 'editor-label',
    describedBy: 'editor-hint',
    onSave: () => void doSave(),
    onChange: () => live.changed(),
    complete: serverCompletion(client, projectId),
    extensions: [announceCompletions()],
  });

  /** showProblems lists the problems of the editor's text: the check's of this text, else the saved draft's errors, with the saved draft's warnings. */
  const showProblems = (): void => {
    const text = view.state.doc.toString();
    problems.show(view, problemsOf(text, draft, checked?.text === text ? checked.check : null));
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

  /** showSaved shows a draft answer: its problems, its quotes and a summary. */
  const showSaved = (d: Draft): void => {
    draft = d;
    showProblems();
    quotes.show(d);
    status.textContent = draftSummary(d);
    void live.now();
  };

  async function doSave(): Promise<void> {
    alert.clear();
    await busy(save, async () => {
      const rules = view.state.doc.toString();
      try {
        status.textContent = 'Saving…';
        const d = await client.call<Draft>('PUT', `/projects/${encodeURIComponent(projectId)}/draft`, { rules });
        versions.record(rules, new Date());
        showSaved(d);
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
    void busy(format, () => formatInPlace(client, projectId, view, status, alert));
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
  if (draft) showSaved(draft);
  else status.textContent = 'No rules yet: write the first version and save it.';
  await openAt(view, params, alert, () => loadSymbols(client, projectId));
}

/** formatInPlace replaces the editor's text with its canonical layout, or shows why a text that does not parse has none, and where. */
async function formatInPlace(client: StudioClient, projectId: string, view: EditorView, status: HTMLElement, alert: { show(text: string): void }): Promise<void> {
  try {
    const got = await formatRules(client, projectId, view.state.doc.toString());
    if (!got.ok) {
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
}

/** openAt puts the cursor where params say (a line, or a criterion and its quote), reading the draft's symbols for a criterion. */
async function openAt(view: EditorView, params: Record<string, string>, alert: { show(text: string): void }, symbols: () => Promise<DraftSymbols | null>): Promise<void> {
  const text = view.state.doc.toString();
  const criterion = params['criterion'];
  const line = criterion !== undefined ? criterionLine(text, criterion, params['quote'], await symbols()) : lineParam(params['line']);
  if (line > 0 && line <= view.state.doc.lines) {
    view.dispatch({ selection: { anchor: view.state.doc.line(line).from }, scrollIntoView: true });
    view.focus();
    announce(criterion !== undefined ? `Criterion ${criterion}, line ${line}.` : `Line ${line}.`);
  } else if (criterion !== undefined) {
    alert.show(`Criterion ${criterion} is not in the saved rules.`);
  }
}
