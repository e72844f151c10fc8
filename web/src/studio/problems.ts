// The editor's problems: placed problems drawn in the editor (underlined,
// with a mark in the gutter) and in the list below it, each item moving
// the cursor to its place, with the fix the API suggests when there is one.

import { EditorView, setDiagnostics, type Diagnostic, type EditorState } from '../../vendor/codemirror.js';
import { h } from '../dom.js';
import { describePlaced, type Placed } from './diagnostics.js';

/** offsetOf is the document offset of a 1-based line and column, kept inside the document and its line. */
function offsetOf(state: EditorState, line: number, column: number): number {
  const l = state.doc.line(Math.min(Math.max(line, 1), state.doc.lines));
  return Math.min(l.from + Math.max(column, 1) - 1, l.to);
}

/** toDiagnostics places problems in the editor's document (CodeMirror offsets): over their span when it is known, else over the word at their place. */
export function toDiagnostics(state: EditorState, placed: Placed[]): Diagnostic[] {
  return placed.map((p) => {
    let from = offsetOf(state, p.line, p.column);
    const line = state.doc.lineAt(from);
    if (p.end) {
      const to = Math.max(from, offsetOf(state, p.end.line, p.end.column));
      if (to > from) return { from, to, severity: p.severity, message: p.message };
    }
    if (from === line.to && line.length > 0) from = line.to - 1;
    const word = /^[A-Za-z0-9_.]+/.exec(state.doc.sliceString(from, line.to));
    const to = Math.min(line.to, from + (word ? word[0].length : 1));
    return { from, to, severity: p.severity, message: p.message };
  });
}

/** ProblemsList is the "Problems" section: its heading says how many, its list what and where. */
export class ProblemsList {
  readonly heading = h('h3', { id: 'problems-heading' }, 'Problems');
  readonly list = h('ul', { id: 'problems', class: 'problems' });
  readonly section = h('section', { 'aria-labelledby': 'problems-heading' }, this.heading, this.list);

  /** fixButton makes the button of a problem's fix; the list is told to make it. */
  constructor(private readonly fixButton: (fix: NonNullable<Placed['fix']>) => HTMLElement) {}

  /** show draws placed in view (replacing what was drawn) and in the list. */
  show(view: EditorView, placed: Placed[]): void {
    view.dispatch(setDiagnostics(view.state, toDiagnostics(view.state, placed)));
    this.heading.textContent = placed.length ? `Problems (${placed.length})` : 'Problems';
    this.list.replaceChildren(
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
              p.fix ? this.fixButton(p.fix) : null,
            ),
          )
        : [h('li', { class: 'none' }, 'None found.')]),
    );
  }
}
