// The rules text area: CodeMirror with the rules language highlighted,
// brackets matched and closed, history, search, the lint gutter, and the
// keys an author expects (Ctrl/Cmd-S saves, Ctrl+Space completes, Tab
// leaves the editor), labelled and described for assistive technology.

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
  type CompletionContext,
  type CompletionResult,
  type Extension,
} from '../../vendor/codemirror.js';
import { rulesLanguage } from './ruleslang.js';

/** What the rules text area is given: its text, and what to do on a save, on each change and to complete. */
export interface RulesViewOptions {
  doc: string;
  /** labelledBy and describedBy are the ids of the editor's label and hint. */
  labelledBy: string;
  describedBy: string;
  onSave: () => void;
  onChange: () => void;
  complete: (ctx: CompletionContext) => Promise<CompletionResult | null>;
  /** extensions are added last (the completion list's announcements). */
  extensions?: Extension[];
}

/** rulesView makes the rules text area in parent. */
export function rulesView(parent: HTMLElement, o: RulesViewOptions): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: o.doc,
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
        // The list opens on Ctrl+Space only: each opening asks the API,
        // which counts against the tenant's daily authoring budget
        // (docs/operations.md), so it is not asked at every word typed.
        autocompletion({ override: [o.complete], activateOnTyping: false }),
        lintGutter(),
        keymap.of([
          { key: 'Mod-s', run: () => (o.onSave(), true), preventDefault: true },
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...historyKeymap,
          ...searchKeymap,
          ...completionKeymap,
          ...lintKeymap,
        ]),
        EditorView.contentAttributes.of({ 'aria-labelledby': o.labelledBy, 'aria-describedby': o.describedBy, 'aria-multiline': 'true' }),
        EditorView.lineWrapping,
        EditorView.updateListener.of((u) => {
          if (u.docChanged) o.onChange();
        }),
        ...(o.extensions ?? []),
      ],
    }),
  });
}
