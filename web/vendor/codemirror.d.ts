// What the studio's editor takes from CodeMirror 6: the one list of it.
//
// This file serves twice. esbuild (build.sh) bundles it, from the locked
// npm packages, into dist/vendor/codemirror.js, one ES module with no
// import of its own, which the browser loads from this origin. tsc reads it
// as that module's declarations: the editor imports
// '../../vendor/codemirror.js', which from dist/js/studio is the bundle and
// from src/studio is this file, so every use is type-checked against the
// real packages' types. Being a declaration file it is never emitted by
// tsc, and holding only re-exports it means the same to both tools.

export { EditorState, StateEffect, StateField } from '@codemirror/state';
export type { Extension, Text } from '@codemirror/state';
export {
  EditorView,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  drawSelection,
  placeholder,
} from '@codemirror/view';
export type { ViewUpdate, KeyBinding } from '@codemirror/view';
export { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
export { StreamLanguage, HighlightStyle, syntaxHighlighting, bracketMatching, indentOnInput } from '@codemirror/language';
export type { StreamParser, StringStream } from '@codemirror/language';
export { tags } from '@lezer/highlight';
export { setDiagnostics, lintGutter, lintKeymap } from '@codemirror/lint';
export type { Diagnostic } from '@codemirror/lint';
export {
  autocompletion,
  completionKeymap,
  completionStatus,
  currentCompletions,
  selectedCompletionIndex,
  closeBrackets,
  closeBracketsKeymap,
} from '@codemirror/autocomplete';
export type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
export { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
