// The graph's overlay: the ruleset's Mermaid text (GET /rulesets/{id}/graph)
// coloured by the state of each criterion, group and the outcome in the
// current answers (/decide's graph_overlay), with each named value's
// figure, free of the DOM.
import { figureText } from './answers.js';
/** The class, colours and text mark of each status; the mark keeps the state readable without colour. */
export const statusLook = {
    satisfied: { style: 'fill:#e3f4e3,stroke:#1b5e20,stroke-width:2px,color:#0b2e0d', mark: '✔', words: 'met' },
    not_satisfied: { style: 'fill:#fbe3e2,stroke:#b71c1c,stroke-width:3px,color:#3b0a0a', mark: '✘', words: 'not met' },
    pending: { style: 'fill:#f2f2f2,stroke:#616161,stroke-width:1px,stroke-dasharray:4 3,color:#1f1f1f', mark: '?', words: 'open' },
};
/**
 * nodeLine is a node line of the server's Mermaid text: `id["label"]`, or
 * `id{{"label"}}` for a named value (a hexagon). Its groups are the indent,
 * the id, the opening bracket, the label and the closing bracket, so a
 * rewritten line keeps its node's shape.
 */
const nodeLine = /^(\s*)([A-Za-z0-9_]+)(\["|\{\{")(.*)("\]|"\}\})\s*$/;
/** isValue reports whether n is a named value's node (a value or a table). */
function isValue(n) {
    return n.type === 'value';
}
/**
 * withOverlay returns the Mermaid text with each criterion, group and
 * outcome node classed by its overlay status (classes satisfied,
 * not_satisfied and pending, as the engine names them) and its label marked
 * ✔, ✘ or ?. A named value shows its figure ("Net income = $900") once the
 * answers settle it, unclassed since a figure is neither met nor not, and
 * is marked ? and classed pending until then. The graph's nodes are
 * written one per line in the graph's node order, so the n-th node line is
 * the n-th node; if the counts differ (the two answers came from different
 * rulesets) the text is returned unchanged rather than coloured wrongly.
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
        const [, indent, id, open, label, close] = m;
        const look = statusLook[n.overlay.status];
        if (!look || !id)
            return;
        if (isValue(n) && n.overlay.status === 'satisfied') {
            lines[at] = `${indent}${id}${open}${label} = ${mermaidLabel(figureText(n.overlay.figure, n.unit))}${close}`;
            return;
        }
        lines[at] = `${indent}${id}${open}${look.mark} ${label}${close}`;
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
 * the n-th node; when the counts differ the text is returned unchanged. The
 * label is written with mermaidLabel, as the server writes its labels, so no
 * character of it can end the label, start a directive or become markup.
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
        const [, indent, id, open, , close] = m;
        lines[at] = `${indent}${id}${open}${mermaidLabel(labelOf(n.id.slice('field:'.length)))}${close}`;
    });
    return lines.join('\n');
}
/**
 * mermaidEntities are the characters a quoted Mermaid label must not hold
 * raw, with the entity codes the server writes for them (engine/present/mermaid.go):
 * the quote ends the label, # starts an entity, brackets, braces, pipes and
 * angle brackets are shape and markup syntax, a backtick starts a markdown
 * string, & an HTML entity.
 */
const mermaidEntities = {
    '"': '#quot;',
    '#': '#35;',
    '[': '#91;',
    ']': '#93;',
    '{': '#123;',
    '}': '#125;',
    '|': '#124;',
    '<': '#60;',
    '>': '#62;',
    '`': '#96;',
    '&': '#38;',
};
/**
 * mermaidLabel escapes text for a quoted Mermaid label `id["..."]` exactly
 * as the server does: the characters in mermaidEntities become entity
 * codes, line breaks and other control or separator characters become a
 * space, and bidirectional overrides are dropped.
 */
export function mermaidLabel(text) {
    let out = '';
    for (const c of text) {
        const code = c.codePointAt(0) ?? 0;
        const e = mermaidEntities[c];
        if (e !== undefined)
            out += e;
        else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0) || code === 0x2028 || code === 0x2029)
            out += ' ';
        else if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069))
            continue;
        else
            out += c;
    }
    return out;
}
/** labelText reads a label written by mermaidLabel (or the server) back as the text it shows. */
export function labelText(label) {
    return label.replace(/#(quot|\d+);/g, (whole, code) => {
        if (code === 'quot')
            return '"';
        const n = Number(code);
        return n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    });
}
/**
 * svgLook maps each character Mermaid's SVG labels cannot show as itself to
 * one that stands in for it while Mermaid lays the graph out: a quote or a
 * backtick would end the label or start markdown, # an entity code, % a
 * directive (`%%{init}%%`, which Mermaid reads anywhere in the text). The
 * real character is put back into the drawn text (see restoredText).
 */
const svgLook = { '"': "'", '`': "'", '#': '\uff03', '%': '\uff05' };
/**
 * svgLabel writes text for a quoted label of Mermaid drawing SVG text (not
 * HTML): &, < and > as the only entities that renderer decodes, and the
 * characters of svgLook by their stand-ins, so the label shows text and
 * can never be markup, a directive or Mermaid syntax.
 */
export function svgLabel(text) {
    let out = '';
    for (const c of text) {
        out += c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : (svgLook[c] ?? c);
    }
    return out;
}
/** shownAs is text as the SVG renderer shows svgLabel(text), one character for each. */
export function shownAs(text) {
    let out = '';
    for (const c of text)
        out += svgLook[c] ?? c;
    return out;
}
/**
 * forSvg rewrites the labels of Mermaid text for drawing as SVG text: each
 * node's label (in the server's entity codes) is read back as its text and
 * written with svgLabel. It returns the new Mermaid text and each node id's
 * text, so restoredText can put the exact words back after drawing.
 */
export function forSvg(mermaid) {
    const labels = new Map();
    const text = mermaid
        .split('\n')
        .map((l) => {
        const m = nodeLine.exec(l);
        if (!m)
            return l;
        const [, indent, id, open, label, close] = m;
        const words = labelText(label ?? '');
        labels.set(id ?? '', words);
        return `${indent}${id}${open}${svgLabel(words)}${close}`;
    })
        .join('\n');
    return { text, labels };
}
/**
 * restoredText puts the exact characters of text back into the pieces
 * Mermaid drew it as (the text of each tspan, in order; Mermaid wraps
 * lines and may add or drop spaces between words). Drawn is what
 * shownAs(text) became; its non-space characters are matched one for one
 * with text's. It returns the pieces with the real characters, or null
 * when the drawing does not match (then the stand-ins stay).
 */
export function restoredText(text, drawn) {
    const real = [...text];
    const shown = [...shownAs(text)];
    let j = 0;
    const out = [];
    for (const piece of drawn) {
        let put = '';
        for (const c of piece) {
            if (/\s/.test(c)) {
                put += c;
                continue;
            }
            while (j < shown.length && /\s/.test(shown[j] ?? ''))
                j++;
            if (shown[j] !== c)
                return null;
            put += real[j];
            j++;
        }
        out.push(put);
    }
    while (j < shown.length && /\s/.test(shown[j] ?? ''))
        j++;
    return j === shown.length ? out : null;
}
