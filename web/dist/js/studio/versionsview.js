// The versions of the draft saved in this session, under the editor:
// each to compare with the editor's text, line by line, or to bring back.
import { announce, h } from '../dom.js';
import { VersionHistory } from './history.js';
import { diffSummary, lineDiff } from './linediff.js';
/** versionName names a version in a sentence. */
const versionName = (v) => (v.n === 0 ? 'the version as opened' : `version ${v.n}`);
/** VersionsList is the "Versions saved this session" section over the editor's text. */
export class VersionsList {
    text;
    replace;
    focus;
    #versions = new VersionHistory();
    list = h('ul', { id: 'versions', class: 'versions' });
    compare = h('section', { id: 'compare', class: 'compare', 'aria-labelledby': 'compare-heading', hidden: true });
    section = h('section', { 'aria-labelledby': 'versions-heading' }, h('h3', { id: 'versions-heading' }, 'Versions saved this session'), this.list, this.compare);
    /**
     * text reads the editor's text; replace puts a version back in it and
     * says so in status; focus returns to the editor.
     */
    constructor(text, replace, focus) {
        this.text = text;
        this.replace = replace;
        this.focus = focus;
    }
    /** record adds rules, just saved (or opened), as a version and redraws the list. */
    record(rules, at) {
        this.#versions.record(rules, at);
        this.list.replaceChildren(...this.#versions.list().map((v) => h('li', {}, h('span', {}, v.n === 0 ? `As opened, ${v.savedAt.toLocaleTimeString()}` : `Version ${v.n}, saved ${v.savedAt.toLocaleTimeString()}`), h('button', { type: 'button', class: 'secondary small', 'aria-label': `Compare ${versionName(v)} with the editor`, onclick: () => this.showCompare(v) }, 'Compare'), h('button', { type: 'button', class: 'secondary small', 'aria-label': `Restore ${versionName(v)}`, onclick: () => this.restore(v) }, 'Restore'))));
    }
    showCompare(v) {
        const lines = lineDiff(v.rules, this.text());
        const heading = h('h4', { id: 'compare-heading', tabindex: '-1' }, `Changes from ${versionName(v)} to the editor’s text`);
        this.compare.replaceChildren(heading, h('p', { id: 'compare-summary' }, diffSummary(lines)), h('ol', { class: 'diff', 'aria-label': 'Line by line', tabindex: '0' }, ...lines.map((l) => h('li', { class: 'diff-' + l.kind }, h('span', { class: 'visually-hidden' }, l.kind === 'added' ? 'Added: ' : l.kind === 'removed' ? 'Removed: ' : 'Unchanged: '), h('span', { class: 'diff-mark', 'aria-hidden': 'true' }, l.kind === 'added' ? '+' : l.kind === 'removed' ? '−' : ' '), h('code', {}, l.text || ' ')))), h('button', { type: 'button', class: 'secondary', onclick: () => ((this.compare.hidden = true), this.focus()) }, 'Close the comparison'));
        this.compare.hidden = false;
        heading.focus();
    }
    restore(v) {
        announce(`${versionName(v)} is back in the editor; save to keep it.`);
        this.replace(v.rules, `${versionName(v).replace(/^./, (c) => c.toUpperCase())} is back in the editor, not yet saved.`);
        this.focus();
    }
}
