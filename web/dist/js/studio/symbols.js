// What the editor completes: the draft's declared field ids (with their
// type and question), its source, group and criterion ids, and the rules
// language's functions and keywords (engine/syntax/GRAMMAR.md).
//
// The API reads the saved draft's symbols with the compiler's parser
// (get-project-draft-symbols), and names the language's functions and
// keywords from the engine's own lists; those come first. What the author
// has declared since the last save is read from the editor's text, so
// completion follows every keystroke; and before the API has answered,
// the lists below stand in.
/** The language's calls (engine/syntax/GRAMMAR.md, "Calls"), with what each gives. */
export const functions = [
    ['min', 'the smallest of numbers'],
    ['max', 'the largest of numbers'],
    ['years_between', 'whole years from one date to another'],
    ['months_between', 'whole months from one date to another'],
    ['days_between', 'days from one date to another'],
    ['add_days', 'a date some days later'],
    ['add_months', 'a date some months later'],
    ['add_years', 'a date some years later'],
    ['decision_date', 'the date the decision is made'],
    ['present', 'whether a field was answered'],
    ['absent', 'whether a field was left unanswered'],
    ['date', 'a date constant, date("YYYY-MM-DD")'],
];
/** The language's keywords and type names. */
export const keywords = [
    'ruleset', 'section', 'name', 'description', 'effective', 'until', 'source', 'url', 'artefact', 'licence', 'license',
    'field', 'question', 'note', 'why', 'legal_background', 'widget', 'free_text', 'weight', 'label', 'unit', 'range', 'option',
    'group', 'all', 'any', 'criterion', 'cite', 'discretionary', 'outcome',
    'and', 'or', 'not', 'in', 'true', 'false', 'int', 'decimal', 'bool', 'date', 'enum',
];
/** readSymbols finds the declarations in a rules text. */
export function readSymbols(rules) {
    const out = [];
    const lines = rules.split('\n');
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i] ?? '';
        let m = /^\s*field\s+([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)\s+(int|decimal|bool|date|enum)\b/.exec(line);
        if (m?.[1]) {
            const question = /^\s*question\s+"((?:[^"\\]|\\.)*)"/.exec(lines[i + 1] ?? '');
            out.push({ label: m[1], kind: 'field', detail: question?.[1] ? `${m[2]}: ${question[1]}` : m[2] });
            continue;
        }
        m = /^\s*source\s+([a-z][a-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"/.exec(line);
        if (m?.[1]) {
            out.push({ label: m[1], kind: 'source', detail: m[2] });
            continue;
        }
        m = /^\s*group\s+([a-z][a-z0-9_]*)\s+(?:all|any)\s+"((?:[^"\\]|\\.)*)"/.exec(line);
        if (m?.[1]) {
            out.push({ label: m[1], kind: 'group', detail: m[2] });
            continue;
        }
        m = /^\s*criterion\s+([a-z][a-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"/.exec(line);
        if (m?.[1])
            out.push({ label: m[1], kind: 'criterion', detail: m[2] });
    }
    return out;
}
/** symbolsFromAPI turns the API's draft symbols into completions. */
export function symbolsFromAPI(s) {
    const described = new Map(functions);
    return [
        ...s.fields.map((f) => ({ label: f.id, kind: 'field', detail: f.question ? `${f.type}: ${f.question}` : f.type })),
        ...s.sources.map((x) => ({ label: x.id, kind: 'source', detail: x.title })),
        ...s.groups.map((x) => ({ label: x.id, kind: 'group', detail: x.title })),
        ...s.criteria.map((x) => ({ label: x.id, kind: 'criterion', detail: x.title })),
        ...s.functions.map((label) => ({ label, kind: 'function', detail: described.get(label) ?? 'function' })),
        ...s.keywords.map((label) => ({ label, kind: 'keyword' })),
    ];
}
/**
 * allSymbols is what the editor offers for rules: the API's symbols of the
 * saved draft when there are any, then whatever the text declares that
 * they lack, then (without the API's) the functions and keywords.
 */
export function allSymbols(rules, saved = null) {
    const out = saved ? symbolsFromAPI(saved) : [];
    const seen = new Set(out.map((s) => s.kind + ' ' + s.label));
    for (const s of readSymbols(rules)) {
        if (!seen.has(s.kind + ' ' + s.label))
            out.push(s);
    }
    if (!saved) {
        out.push(...functions.map(([label, detail]) => ({ label, kind: 'function', detail })));
        out.push(...keywords.map((label) => ({ label, kind: 'keyword' })));
    }
    return out;
}
