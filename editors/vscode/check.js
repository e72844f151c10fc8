// check.js — the grammar as an editor applies it: every casebank .rules
// file is tokenised by vscode-textmate with the Oniguruma regex engine
// (the engine VS Code itself uses, from the lockfile), and every
// character that is not white space must fall to a rule of the grammar
// other than the catch-all invalid.illegal one. Control texts with
// characters the language does not use must be flagged, so the check can
// fail. Usage: node check.js CASEBANK_DIR
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const grammarPath = path.join(__dirname, 'syntaxes', 'rules.tmLanguage.json');
const wasm = fs.readFileSync(path.join(__dirname, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm')).buffer;

/** problems lists the characters of text no rule but invalid.illegal covers. */
function problems(grammar, text) {
  const out = [];
  let stack = vsctm.INITIAL;
  text.split('\n').forEach((line, i) => {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) {
      const word = line.slice(t.startIndex, t.endIndex);
      if (!word.trim()) continue;
      const own = t.scopes.slice(1);
      if (own.length === 0 || own.some((s) => s.startsWith('invalid.'))) {
        out.push(`${i + 1}:${t.startIndex + 1} ${JSON.stringify(word)} (${t.scopes.join(' ')})`);
      }
    }
    stack = r.ruleStack;
  });
  return out;
}

async function main() {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node check.js CASEBANK_DIR');
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.eligo-rules' ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath) : null,
  });
  const grammar = await registry.loadGrammar('source.eligo-rules');
  let files = 0;
  let failed = 0;
  for (const folder of fs.readdirSync(dir).sort()) {
    const sub = path.join(dir, folder);
    if (!fs.statSync(sub).isDirectory()) continue;
    for (const name of fs.readdirSync(sub).filter((n) => n.endsWith('.rules'))) {
      files++;
      const found = problems(grammar, fs.readFileSync(path.join(sub, name), 'utf8'));
      for (const p of found) console.error(`${path.join(sub, name)}:${p}: no grammar rule covers it`);
      failed += found.length;
    }
  }
  if (files < 30) throw new Error(`found ${files} .rules files under ${dir}; the check is not looking at the casebank`);
  // Controls: what the language does not use must be flagged.
  for (const bad of ['x = 1', 'a.b && c', 'group G @ {', '\u201cquoted\u201d']) {
    if (problems(grammar, bad).length === 0) {
      console.error(`control ${JSON.stringify(bad)} has no unknown token: the grammar accepts anything`);
      failed++;
    }
  }
  // A string the line ends inside does not swallow the next line.
  if (problems(grammar, 'question "open\n@').length !== 1) {
    console.error('an unclosed string runs on past its line');
    failed++;
  }
  console.log(`grammar: ${files} casebank files tokenised, ${failed} unknown tokens`);
  if (failed > 0) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
