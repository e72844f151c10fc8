// The graph's overlay: the ruleset's Mermaid text (GET /rulesets/{id}/graph)
// coloured by the state of each criterion, group and the outcome in the
// current answers (/decide's graph_overlay), free of the DOM.
/** The class, colours and text mark of each status; the mark keeps the state readable without colour. */
export const statusLook = {
    satisfied: { style: 'fill:#e3f4e3,stroke:#1b5e20,stroke-width:2px,color:#0b2e0d', mark: '✔', words: 'met' },
    not_satisfied: { style: 'fill:#fbe3e2,stroke:#b71c1c,stroke-width:3px,color:#3b0a0a', mark: '✘', words: 'not met' },
    pending: { style: 'fill:#f2f2f2,stroke:#616161,stroke-width:1px,stroke-dasharray:4 3,color:#1f1f1f', mark: '?', words: 'open' },
};
const nodeLine = /^(\s*)([A-Za-z0-9_]+)\["(.*)"\]\s*$/;
/**
 * withOverlay returns the Mermaid text with each criterion, group and
 * outcome node classed by its overlay status (classes satisfied,
 * not_satisfied and pending, as the engine names them) and its label marked
 * ✔, ✘ or ?. The graph's nodes are written one per line in the graph's node
 * order, so the n-th node line is the n-th node; if the counts differ (the
 * two answers came from different rulesets) the text is returned unchanged
 * rather than coloured wrongly.
 */
export function withOverlay(mermaid, nodes) {
    const lines = mermaid.split('\n');
    const nodeLines = [];
    lines.forEach((l, i) => {
        if (nodeLine.test(l))
            nodeLines.push(i);
    });
    if (nodeLines.length !== nodes.length) {
        return mermaid;
    }
    const byStatus = { satisfied: [], not_satisfied: [], pending: [] };
    nodes.forEach((n, k) => {
        const at = nodeLines[k];
        if (at === undefined || !n.overlay || n.type === 'field') {
            return;
        }
        const m = nodeLine.exec(lines[at] ?? '');
        if (!m)
            return;
        const [, indent, id, label] = m;
        const look = statusLook[n.overlay.status];
        if (!look || !id)
            return;
        lines[at] = `${indent}${id}["${look.mark} ${label}"]`;
        byStatus[n.overlay.status].push(id);
    });
    const out = lines.filter((l) => !/^\s*(classDef|class)\s/.test(l));
    while (out.length && out[out.length - 1] === '')
        out.pop();
    for (const st of ['satisfied', 'not_satisfied', 'pending']) {
        if (byStatus[st].length) {
            out.push(`  classDef ${st} ${statusLook[st].style}`);
            out.push(`  class ${byStatus[st].join(',')} ${st}`);
        }
    }
    return out.join('\n') + '\n';
}
/**
 * withFieldLabels returns the Mermaid text with each field node labelled
 * by labelOf(field id) (the ruleset's label for people) instead of the
 * words the server makes of the id. As withOverlay, the n-th node line is
 * the n-th node; when the counts differ the text is returned unchanged. A
 * double quote, which would end Mermaid's label, is written as a single one.
 */
export function withFieldLabels(mermaid, nodes, labelOf) {
    const lines = mermaid.split('\n');
    const nodeLines = [];
    lines.forEach((l, i) => {
        if (nodeLine.test(l))
            nodeLines.push(i);
    });
    if (nodeLines.length !== nodes.length) {
        return mermaid;
    }
    nodes.forEach((n, k) => {
        const at = nodeLines[k];
        if (at === undefined || n.type !== 'field' || !n.id.startsWith('field:'))
            return;
        const m = nodeLine.exec(lines[at] ?? '');
        if (!m)
            return;
        const [, indent, id] = m;
        lines[at] = `${indent}${id}["${labelOf(n.id.slice('field:'.length)).replace(/"/g, "'")}"]`;
    });
    return lines.join('\n');
}
