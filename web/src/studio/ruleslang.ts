// Syntax highlighting for the rules language (engine/syntax/GRAMMAR.md) in the
// editor: a line-by-line tokenizer (CodeMirror's StreamLanguage), which is
// all highlighting needs since no token spans lines. Colours keep at least
// 4.5:1 contrast on the editor's white.

import { HighlightStyle, StreamLanguage, type StreamParser, syntaxHighlighting, tags, type Extension } from '../../vendor/codemirror.js';
import { functions, keywords } from './symbols.js';

const keywordSet = new Set(keywords.filter((k) => !['true', 'false', 'int', 'decimal', 'bool', 'date', 'enum'].includes(k)));
const typeSet = new Set(['int', 'decimal', 'bool', 'date', 'enum']);
const functionSet = new Set(functions.map(([name]) => name));

/** rulesParser reads one token at a time; it keeps no state between lines. */
const rulesParser: StreamParser<Record<string, never>> = {
  name: 'eligo-rules',
  startState: () => ({}),
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/)) return 'number';
    if (stream.match(/^\d{4}-\d{2}-\d{2}/)) return 'number';
    if (stream.match(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*/)) return 'variableName';
    const word = stream.match(/^[a-z_][a-z0-9_]*/);
    if (word && typeof word !== 'boolean') {
      const w = word[0];
      if (w === 'true' || w === 'false') return 'bool';
      if (typeSet.has(w) && stream.peek() !== '(') return 'typeName';
      if (functionSet.has(w) && stream.peek() === '(') return 'variableName.function';
      if (keywordSet.has(w)) return 'keyword';
      return 'labelName';
    }
    if (stream.match(/^(?:==|!=|<=|>=|\?\?|[<>+\-*])/)) return 'operator';
    if (stream.match(/^[{}[\]()]/)) return 'bracket';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '#' } },
};

const rulesHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: '#6a1b7a', fontWeight: '600' },
  { tag: tags.string, color: '#1b5e20' },
  { tag: tags.number, color: '#7a4100' },
  { tag: tags.bool, color: '#7a4100' },
  { tag: tags.comment, color: '#4a4a4a', fontStyle: 'italic' },
  { tag: tags.variableName, color: '#0b4f9c' },
  { tag: tags.function(tags.variableName), color: '#8c1d18' },
  { tag: tags.typeName, color: '#6a1b7a' },
  { tag: tags.labelName, color: '#1a1a1a' },
  { tag: tags.operator, color: '#1a1a1a' },
]);

/** rulesLanguage is the editor's highlighting for .rules text. */
export function rulesLanguage(): Extension {
  return [StreamLanguage.define(rulesParser), syntaxHighlighting(rulesHighlight)];
}
