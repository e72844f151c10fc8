// The publishing gates as the draft answer shows them before publishing:
// whether the rules compile, every test passes, every declared source binds
// to an uploaded, licensed source, and every quote is in its source. The
// publish operation applies the same gates; reading them first lets the
// studio say what will fail, and name it in the confirmation that
// overrides the tests.
import { outcomeWords } from './caseform.js';
import { citerWords } from './clauses.js';
/** gates reads the draft answer as the publishing gates will judge it. */
export function gates(d) {
    const failing = d.acceptance.results.filter((r) => !r.pass);
    const contract = d.acceptance.contract_checks.filter((c) => !c.pass);
    const flagged = d.provenance_report.quotes.filter((q) => !q.verified);
    // A source is named as the rules cite it (fpg_2025), with the file the
    // team uploaded; the project's own source id is for developers.
    const files = new Map(d.provenance_report.coverage.map((c) => [c.source_id, c.filename]));
    const sourceWords = (q) => {
        const file = files.get(q.project_source_id);
        return file ? `${q.source_id} (${file})` : q.source_id;
    };
    return [
        { name: 'The rules compile', ok: d.compiles, overridable: false, problems: d.compile_errors },
        {
            name: 'Every test passes',
            ok: d.compiles && d.acceptance.accepted,
            overridable: true,
            problems: [
                ...failing.map((r) => `${r.name}: expected ${outcomeWords(r.expected)}, decided ${outcomeWords(r.got)}`),
                ...contract.flatMap((c) => c.problems.map((p) => `${c.check}: ${p}`)),
            ],
        },
        { name: 'Every source is uploaded and licensed', ok: d.reference_problems.length === 0, overridable: false, problems: d.reference_problems },
        {
            name: 'Every quote is in its source',
            ok: flagged.length === 0,
            overridable: false,
            problems: flagged.map((q) => `${citerWords(q)}: “${q.quote}” is not in ${sourceWords(q)}`),
        },
    ];
}
