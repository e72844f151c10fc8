// Unit tests of the source view's logic: its addresses, cutting a page
// into clauses by the API's byte offsets, how each clause is marked and
// summed up, finding a quote's passage, and where the rules editor opens
// for a criterion.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { citationWords, citedAsWords, clauseState, coverageWords, criteriaOf, findPassage, marksHeldOver, pageSegments } from '../src/studio/clauses.js';
import { criterionLine, lineParam } from '../src/studio/jump.js';
import { parseStudioRoute, rulesHref, sourceHref, studioHref } from '../src/studio/routes.js';
import type { ClauseCitation, DraftSymbols, SourceClause } from '../src/studio/types.js';

/** clause places text, the n-th occurrence in pageText, as the API does: by UTF-8 byte offsets. */
function clause(pageText: string, text: string, extra: Partial<SourceClause> = {}): SourceClause {
  const at = pageText.indexOf(text);
  assert.ok(at >= 0, `${text} is in the page`);
  const enc = new TextEncoder();
  const start = enc.encode(pageText.slice(0, at)).length;
  return { number: 1, page: 1, start, end: start + enc.encode(text).length, text, counted: true, heading: false, cited_by: [], ...extra };
}

const found: ClauseCitation = { criterion_id: 'adult', source_id: 'law', quote: 'at least 18 years old', verified: true };
const near: ClauseCitation = { criterion_id: 'officer', source_id: 'law', quote: 'may aprove', verified: false };

test('source view addresses: a source, at a passage, and the rules at a criterion', () => {
  const cases: Array<[string, ReturnType<typeof parseStudioRoute>]> = [
    ['#/studio/projects/prj_abc/sources/src_x', { kind: 'project', projectId: 'prj_abc', screen: 'sources', sourceId: 'src_x' }],
    [
      '#/studio/projects/prj_abc/sources/src_x?criterion=adult&quote=at+least+18+%E2%80%9Cyears%E2%80%9D+%26+more',
      { kind: 'project', projectId: 'prj_abc', screen: 'sources', sourceId: 'src_x', params: { criterion: 'adult', quote: 'at least 18 “years” & more' } },
    ],
    ['#/studio/projects/prj_abc/draft?criterion=adult', { kind: 'project', projectId: 'prj_abc', screen: 'draft', params: { criterion: 'adult' } }],
    ['#/studio/projects/prj_abc/draft?line=12', { kind: 'project', projectId: 'prj_abc', screen: 'draft', params: { line: '12' } }],
    ['#/studio/projects/prj_abc/tests/src_x', null],
    ['#/studio/projects/prj_abc/sources/src_x/more', null],
  ];
  for (const [hash, want] of cases) {
    assert.deepEqual(parseStudioRoute(hash), want, hash);
    if (want) assert.equal(studioHref(want), hash, hash);
  }
  assert.equal(sourceHref('prj_abc', 'src_x'), '#/studio/projects/prj_abc/sources/src_x');
  assert.deepEqual(parseStudioRoute(sourceHref('prj_abc', 'src_x', { criterion: 'adult', quote: 'a?b#c/d' })), {
    kind: 'project', projectId: 'prj_abc', screen: 'sources', sourceId: 'src_x', params: { criterion: 'adult', quote: 'a?b#c/d' },
  });
  assert.deepEqual(parseStudioRoute(rulesHref('prj_abc', 'adult', 'x & y')), { kind: 'project', projectId: 'prj_abc', screen: 'draft', params: { criterion: 'adult', quote: 'x & y' } });
});

test('a page is cut at its clauses by byte offsets, accents and symbols included', () => {
  const page = '§ 1. Le café coûte 5 €.\n\nNul ne paie deux fois — jamais.\n';
  const a = clause(page, 'Le café coûte 5 €.', { number: 1 });
  const b = clause(page, 'Nul ne paie deux fois — jamais.', { number: 2, cited_by: [found] });
  const segs = pageSegments(page, 1, [a, b]);
  assert.deepEqual(segs.map((s) => [s.text, s.clause?.number ?? null]), [
    ['§ 1. ', null],
    ['Le café coûte 5 €.', 1],
    ['\n\n', null],
    ['Nul ne paie deux fois — jamais.', 2],
    ['\n', null],
  ]);
  assert.equal(segs.map((s) => s.text).join(''), page, 'nothing of the page is lost');

  // Clauses of another page are not this page's; offsets past the page,
  // or overlapping the clause before, leave the text plain.
  const other = { ...b, page: 2 };
  const past = { ...b, end: 10_000 };
  const overlapping = { ...b, start: a.start + 1 };
  for (const bad of [other, past, overlapping]) {
    const got = pageSegments(page, 1, [a, bad]);
    assert.deepEqual(got.map((s) => s.clause?.number ?? null), [null, 1, null], JSON.stringify(bad));
    assert.equal(got.map((s) => s.text).join(''), page);
  }
  assert.deepEqual(pageSegments('', 1, []), [{ text: '', clause: null }]);
});

test('each clause is marked by what cites it, in words', () => {
  const base = clause('x', 'x');
  const cases: Array<[Partial<SourceClause>, ReturnType<typeof clauseState>]> = [
    [{ cited_by: [found] }, 'cited'],
    [{ cited_by: [near, found] }, 'cited'],
    [{ cited_by: [near] }, 'near'],
    [{ cited_by: [] }, 'uncited'],
    [{ cited_by: [], counted: false }, 'heading'],
    [{ cited_by: [near], counted: false }, 'near'],
  ];
  for (const [extra, want] of cases) assert.equal(clauseState({ ...base, ...extra }), want, JSON.stringify(extra));
  assert.equal(citationWords(found), 'Criterion adult quotes “at least 18 years old”, found word for word.');
  assert.equal(citationWords(near), 'Criterion officer quotes “may aprove”, not found word for word: this is the nearest passage.');
  assert.deepEqual(criteriaOf({ ...base, cited_by: [found, near, { ...found, quote: 'other' }] }), ['adult', 'officer']);
  // A named value's or table's quote names the figure, not an empty criterion.
  const figure = { ...found, criterion_id: '', value_id: 'net_income' };
  assert.equal(citationWords(figure), 'The figure net_income quotes “at least 18 years old”, found word for word.');
  assert.deepEqual(criteriaOf({ ...base, cited_by: [found, figure] }), ['adult', 'net_income']);
});

test('clauses of one paragraph cited alike say "Cited by" once, after the last', () => {
  const page =
    'An applicant qualifies if: (a) is resident; (b) is over 18; (c) holds a licence.\n(d) is employed.\n\n(e) applied in writing; (f) paid the fee.\n';
  const other: ClauseCitation = { ...found, quote: 'paid the fee' };
  const cs = [
    clause(page, 'An applicant qualifies if:', { number: 1 }),
    clause(page, '(a) is resident;', { number: 2, cited_by: [found] }),
    clause(page, '(b) is over 18;', { number: 3, cited_by: [found] }),
    clause(page, '(c) holds a licence.', { number: 4, cited_by: [found] }),
    clause(page, '(d) is employed.', { number: 5, cited_by: [found] }), // the next line, same paragraph
    clause(page, '(e) applied in writing;', { number: 6, cited_by: [found] }), // a new paragraph
    clause(page, '(f) paid the fee.', { number: 7, cited_by: [found, other] }), // cited otherwise
  ];
  const segs = pageSegments(page, 1, cs);
  const marked = segs.flatMap((s, i) => (s.clause && s.clause.cited_by.length && !marksHeldOver(segs)[i] ? [s.clause.number] : []));
  assert.deepEqual(marked, [5, 6, 7], 'one mark for clauses 2-5, then each of the next paragraph’s');
  // The same citations in another order are cited alike.
  const swapped = [cs[5]!, { ...cs[6]!, cited_by: [other, found] }];
  const both = pageSegments(page, 1, [{ ...swapped[0]!, cited_by: [found, other] }, swapped[1]!]);
  assert.deepEqual(marksHeldOver(both).filter((x) => x).length, 1);
  // Uncited clauses are each marked.
  assert.ok(marksHeldOver(pageSegments(page, 1, [cs[0]!, { ...cs[1]!, cited_by: [] }, { ...cs[2]!, cited_by: [] }])).every((x) => !x));
});

test('the summary counts the clauses cited', () => {
  const cases: Array<[{ clauses: number; cited_clauses: number }, 'none' | 'invalid' | 'compiled', string]> = [
    [{ clauses: 3, cited_clauses: 2 }, 'compiled', '2 of 3 clauses cited by the rules (67%); 1 clause is not cited.'],
    [{ clauses: 4, cited_clauses: 1 }, 'compiled', '1 of 4 clauses cited by the rules (25%); 3 clauses are not cited.'],
    [{ clauses: 1, cited_clauses: 1 }, 'compiled', '1 of 1 clause cited by the rules (100%).'],
    [{ clauses: 2, cited_clauses: 0 }, 'none', '0 of 2 clauses cited by the rules (0%): the project has no rules yet.'],
    [{ clauses: 2, cited_clauses: 0 }, 'invalid', '0 of 2 clauses cited by the rules (0%): the rules do not compile, so their quotes cannot be checked.'],
    [{ clauses: 0, cited_clauses: 0 }, 'compiled', 'The text has no clauses to cite.'],
  ];
  for (const [c, draft, want] of cases) assert.equal(coverageWords({ coverage: { ...c, share: 0 }, draft }), want);
});

test('a quote’s passage is the first clause it rests on', () => {
  const page = 'One two three four. Five six seven eight.';
  const clauses = [clause(page, 'One two three four.'), clause(page, 'Five six seven eight.', { number: 2, cited_by: [near, found] })];
  assert.equal(findPassage(clauses, 'adult', found.quote), 1);
  assert.equal(findPassage(clauses, 'officer', near.quote), 1);
  assert.equal(findPassage(clauses, 'adult', 'another quote'), -1);
  assert.equal(findPassage(clauses, 'nobody', found.quote), -1);
});

test('the rules open at the criterion, or at its cite of the quote', () => {
  const rules = [
    'section grant', // 1
    'group age all "Age" {', // 2
    '  criterion adult "At least 18" {', // 3
    '    person.age >= 18', // 4
    '    cite law "is at least 18 years old"', // 5
    '    cite law "a \\"quoted\\" word"', // 6
    '  }', // 7
    '  criterion adult_2 "Other" {', // 8
    '    cite law "elsewhere"', // 9
    '  }', // 10
    '}', // 11
    'value net_income decimal "Net income" {', // 12
    '  person.income - 100', // 13
    '  cite law "less a deduction"', // 14
    '}', // 15
  ].join('\n');
  const symbols = { criteria: [{ id: 'adult', group_id: 'age', title: 'At least 18', discretionary: false, line: 3 }] } as unknown as DraftSymbols;
  const stale = { criteria: [{ id: 'adult', group_id: 'age', title: 'At least 18', discretionary: false, line: 9 }] } as unknown as DraftSymbols;
  const cases: Array<[string, string | undefined, DraftSymbols | null, number]> = [
    ['adult', undefined, symbols, 3],
    ['adult', undefined, null, 3],
    ['adult', undefined, stale, 3],
    ['adult', 'is at least 18 years old', symbols, 5],
    ['adult', 'a "quoted" word', null, 6],
    ['adult', 'elsewhere', null, 3], // another criterion's cite
    ['adult_2', 'elsewhere', null, 9],
    ['nobody', undefined, null, 0],
    ['net_income', 'less a deduction', null, 14], // a named value's cite
  ];
  for (const [criterion, quote, syms, want] of cases) assert.equal(criterionLine(rules, criterion, quote, syms), want, `${criterion} ${quote}`);
  assert.deepEqual(['12', '0', '-3', '2.5', 'x', undefined].map(lineParam), [12, 0, 0, 0, 0, 0]);
});

test('a source is named as the rules cite it, not by its project id', () => {
  const cite = (source_id: string): ClauseCitation => ({ criterion_id: 'c', quote: 'q', source_id, verified: true });
  const clause = (cited_by: ClauseCitation[]): SourceClause => ({ number: 1, page: 1, start: 0, end: 1, text: 't', heading: false, counted: true, cited_by });
  const cases: { name: string; clauses: SourceClause[]; unplaced: ClauseCitation[]; want: string }[] = [
    { name: 'nothing cites it', clauses: [clause([])], unplaced: [], want: '' },
    { name: 'one id, cited twice', clauses: [clause([cite('fpg_2025')]), clause([cite('fpg_2025')])], unplaced: [], want: 'The rules cite it as fpg_2025.' },
    { name: 'a quote not found still names it', clauses: [clause([])], unplaced: [cite('fpg_2025')], want: 'The rules cite it as fpg_2025.' },
    { name: 'several ids', clauses: [clause([cite('usc'), cite('act')]), clause([cite('cfr')])], unplaced: [], want: 'The rules cite it as act, cfr and usc.' },
  ];
  for (const c of cases) assert.equal(citedAsWords({ clauses: c.clauses, unplaced_quotes: c.unplaced }), c.want, c.name);
});
