// Unit tests of the graph overlay, the audit envelope and source links.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { auditEnvelope, indent } from '../src/envelope.js';
import { safeLink } from '../src/links.js';
import { forSvg, labelText, mermaidLabel, restoredText, shownAs, svgLabel, withFieldLabels, withOverlay } from '../src/overlay.js';
import type { Decision, GraphNode } from '../src/types.js';

const mermaid = `flowchart LR
  field_a["a"]
  criterion_c["C"]
  group_g["G (all of)"]
  outcome["O"]
  field_a --> criterion_c
  criterion_c --> group_g
  group_g --> outcome
`;

function node(id: string, type: GraphNode['type'], status: 'satisfied' | 'not_satisfied' | 'pending' | null): GraphNode {
  // Only the members the overlay reads; the rest of each node's kind is left out.
  return { id, type, label: id, overlay: status ? { status, supporting_facts: [] } : null } as GraphNode;
}

test('criteria, groups and the outcome are classed and marked by status; fields are not', () => {
  const out = withOverlay(mermaid, [
    node('field:a', 'field', 'satisfied'),
    node('criterion:c', 'criterion', 'not_satisfied'),
    node('group:g', 'group', 'not_satisfied'),
    node('outcome', 'outcome', 'pending'),
  ]);
  assert.match(out, /criterion_c\["✘ C"\]/);
  assert.match(out, /group_g\["✘ G \(all of\)"\]/);
  assert.match(out, /outcome\["\? O"\]/);
  assert.match(out, /field_a\["a"\]/);
  assert.match(out, /\n {2}class criterion_c,group_g not_satisfied\n/);
  assert.match(out, /\n {2}class outcome pending\n/);
  assert.doesNotMatch(out, /class field_a/);
  assert.match(out, /classDef not_satisfied fill:/);
  // Edges are kept.
  assert.match(out, /group_g --> outcome/);
});

test('without an overlay, or for another graph, the text is unchanged in substance', () => {
  assert.equal(withOverlay(mermaid, [node('field:a', 'field', null)]), mermaid);
  const plain = withOverlay(mermaid, [node('field:a', 'field', null), node('c', 'criterion', null), node('g', 'group', null), node('o', 'outcome', null)]);
  assert.doesNotMatch(plain, /class/);
});

test('field nodes take the labels for people; other nodes and mismatched graphs are left alone', () => {
  const nodes = [node('field:a', 'field', null), node('criterion:c', 'criterion', null), node('group:g', 'group', null), node('outcome', 'outcome', null)];
  const labels = new Map([['a', 'Hours worked in the "last" 12 months']]);
  const out = withFieldLabels(mermaid, nodes, (id) => labels.get(id) ?? id);
  assert.match(out, /field_a\["Hours worked in the #quot;last#quot; 12 months"\]/);
  assert.match(out, /criterion_c\["C"\]/);
  assert.match(out, /field_a --> criterion_c/);
  assert.equal(withFieldLabels(mermaid, nodes.slice(1), () => 'x'), mermaid);
  // The overlay still finds every node line after relabelling.
  assert.match(withOverlay(out, [node('field:a', 'field', null), node('criterion:c', 'criterion', 'satisfied'), node('group:g', 'group', null), node('outcome', 'outcome', null)]), /criterion_c\["✔ C"\]/);
});

// A graph with named values, as the server draws it: values are hexagons.
const computing = `flowchart LR
  field_income_earned["income earned"]
  value_gross{{"Gross income"}}
  value_limit{{"Income limit (table)"}}
  criterion_under["Under the limit"]
  group_money["Money (all of)"]
  outcome["O"]
  field_income_earned --> value_gross
  value_gross --> criterion_under
  value_limit --> criterion_under
  criterion_under --> group_money
  group_money --> outcome
`;

function valueNode(id: string, status: 'satisfied' | 'pending', figure: unknown, unit: string): GraphNode {
  return { id, type: 'value', label: id, unit, overlay: { status, figure, supporting_facts: [] } } as unknown as GraphNode;
}

test('a named value shows its figure once the answers settle it, and is marked open until then; its hexagon is kept', () => {
  const nodes = [
    node('field:income.earned', 'field', 'satisfied'),
    valueNode('value:gross', 'satisfied', 1187.4, 'USD'),
    valueNode('value:limit', 'pending', null, 'USD'),
    node('criterion:under', 'criterion', 'pending'),
    node('group:g', 'group', 'pending'),
    node('outcome', 'outcome', 'pending'),
  ];
  const out = withOverlay(computing, nodes);
  assert.match(out, /\n {2}value_gross\{\{"Gross income = \$1,187\.40"\}\}\n/);
  assert.match(out, /\n {2}value_limit\{\{"\? Income limit \(table\)"\}\}\n/);
  assert.match(out, /\n {2}class value_limit,criterion_under,group_money,outcome pending\n/);
  assert.doesNotMatch(out, /class [^\n]*value_gross/);
  assert.match(out, /value_limit --> criterion_under/);
  // Field labels and SVG labels keep the hexagon too.
  const labelled = withFieldLabels(computing, nodes, () => 'Earned "income"');
  assert.match(labelled, /field_income_earned\["Earned #quot;income#quot;"\]/);
  assert.match(labelled, /value_gross\{\{"Gross income"\}\}/);
  const { text, labels } = forSvg(out);
  assert.match(text, /\n {2}value_gross\{\{"Gross income = \$1,187\.40"\}\}\n/);
  assert.equal(labels.get('value_limit'), '? Income limit (table)');
});

// Labels as an author might write them to break out of the graph: markup,
// entities, quotes, Mermaid syntax, a directive, markdown.
const hostile = [
  "<a href='https://evil.example/login'> SESSION EXPIRED - click to sign in again</a>",
  '<img src=x onerror=alert(1)>',
  '<b>bold</b> <svg onload=alert(1)></svg>',
  '&lt;i&gt; &amp; #60;b#62; &#60;u&#62; #quot; #35;35;',
  '" onmouseover="alert(1)',
  '"] --> evil["hi',
  '%%{init: {"htmlLabels": true}}%%',
  '`**markdown**` _em_ [link](https://evil.example/md)',
];

test('a field label is written as the server writes labels: no character of it is Mermaid syntax or markup', () => {
  const nodes = [node('field:a', 'field', null), node('criterion:c', 'criterion', null), node('group:g', 'group', null), node('outcome', 'outcome', null)];
  for (const label of hostile) {
    const out = withFieldLabels(mermaid, nodes, () => label);
    const line = out.split('\n')[1] ?? '';
    assert.match(line, /^ {2}field_a\["[^"<>`{}[\]|&]*"\]$/, label);
    assert.equal(labelText(/\["(.*)"\]/.exec(line)?.[1] ?? ''), label);
  }
  assert.equal(mermaidLabel('a\nb\u202ec\u0007'), 'a bc ');
  assert.equal(labelText('#35;60; #1114112; #quot;'), '#60; #1114112; "');
});

test('for SVG labels each label is text: only &, < and > as entities, stand-ins for what Mermaid would read', () => {
  const text = 'flowchart LR\n' + hostile.map((l, i) => `  n${i}["${mermaidLabel(l)}"]`).join('\n') + '\n  n0 --> n1\n';
  const { text: svgText, labels } = forSvg(text);
  hostile.forEach((l, i) => assert.equal(labels.get(`n${i}`), l));
  for (const line of svgText.split('\n').filter((l) => l.startsWith('  n') && !l.includes('-->'))) {
    const label = /\["(.*)"\]$/.exec(line)?.[1] ?? '';
    assert.doesNotMatch(label, /["<>`#%]/, line);
    assert.doesNotMatch(label.replace(/&(amp|lt|gt);/g, ''), /&/, line);
  }
  assert.match(svgText, /\n {2}n0 --> n1\n/);
  assert.equal(svgLabel('<a> & "x" #1 %%{'), "&lt;a&gt; &amp; 'x' \uff031 \uff05\uff05{");
});

test('the drawn words get their real characters back, wrapped as Mermaid wrapped them', () => {
  const text = '"x" #60; `y` %%{';
  // Mermaid wraps and drops spaces between lines.
  const words = shownAs(text).split(' ');
  const drawn = [words[0] ?? '', ' ' + (words[1] ?? ''), (words[2] ?? '') + ' ', words[3] ?? ''];
  assert.deepEqual(restoredText(text, drawn), ['"x"', ' #60;', '`y` ', '%%{']);
  assert.equal(restoredText(text, ['something else']), null);
  assert.equal(restoredText(text, [shownAs('"x"')]), null, 'a drawing missing words is not matched');
});

test('the audit envelope holds the replay request with numbers as sent', () => {
  const d = {
    decision: 'eligible',
    decision_id: 'dec_1',
    decision_time: '2026-11-23T00:00:00Z',
    slug: 'demo/x',
    ruleset_id: 'x:1',
    ruleset_version: 'v1',
    content_digest: 'sha256:c',
    engine_version: 'eligo-core@1',
    inputs_hash: 'sha256:h',
  } as Decision;
  const text = auditEnvelope(d, new Map([['g.n', { text: '1250.10', json: '1250.10' }]]), ['g.z']);
  assert.match(text, /"g\.n": 1250\.10/);
  const env = JSON.parse(text);
  assert.equal(env.inputs_hash, 'sha256:h');
  assert.equal(env.content_digest, 'sha256:c');
  assert.deepEqual(env.request, { ruleset_id: 'x:1', field_values: { 'g.n': 1250.1 }, inquiry_context: { declined_fields: ['g.z'] } });
  const dated = JSON.parse(auditEnvelope({ ...d, decision_date: '2026-11-23' }, new Map(), []));
  assert.equal(dated.decision_date, '2026-11-23');
  assert.equal(dated.request.decision_date, '2026-11-23', 'a replay asks for the same decision date');
  const book = JSON.parse(
    auditEnvelope({ ...d, ruleset_id: undefined, rulebook_id: 'rb_1', release: { release_id: 'u-1', label: 'joyful-buffalo', version: 1, title: '', content_identity: 'sha256:r', published_at: '2026-11-23T00:00:00Z' } }, new Map(), []),
  );
  assert.equal(book.rulebook_id, 'rb_1');
  assert.equal('ruleset_id' in book, false);
  assert.deepEqual(book.request, { rulebook_id: 'rb_1', release_id: 'u-1', field_values: {} }, 'a rulebook decision replays on the release it evaluated');
});

test('indent lays out JSON without reading it', () => {
  assert.equal(indent('{"a":[1,{"b":"x,y{"}],"c":{},"d":"q\\"}"}'), '{\n  "a": [\n    1,\n    {\n      "b": "x,y{"\n    }\n  ],\n  "c": {},\n  "d": "q\\"}"\n}');
});

test('only http and https addresses become links', () => {
  assert.equal(safeLink('https://example.org/law#:~:text=a%20b'), 'https://example.org/law#:~:text=a%20b');
  assert.equal(safeLink('http://example.org/'), 'http://example.org/');
  for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'JAVASCRIPT:x', '//example.org', '', undefined, 'https://a b']) {
    assert.equal(safeLink(bad), undefined, String(bad));
  }
});
