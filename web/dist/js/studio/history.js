// The versions of the draft saved in this page session, newest last, so
// an author can compare the text in the editor with any of them and bring
// one back. Kept in memory only: a reload starts a new session.
/** VersionHistory records versions, skipping a save that changed nothing. */
export class VersionHistory {
    #versions = [];
    /** record adds rules as the next version and returns it, or the last one when the text is unchanged. */
    record(rules, at) {
        const last = this.#versions[this.#versions.length - 1];
        if (last && last.rules === rules)
            return last;
        const v = { n: this.#versions.length, rules, savedAt: at };
        this.#versions.push(v);
        return v;
    }
    /** list returns the versions, newest first. */
    list() {
        return [...this.#versions].reverse();
    }
    /** get returns version n. */
    get(n) {
        return this.#versions[n];
    }
}
