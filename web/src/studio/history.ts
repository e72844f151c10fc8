// The versions of the draft saved in this page session, newest last, so
// an author can compare the text in the editor with any of them and bring
// one back. Kept in memory only: a reload starts a new session.

/** One saved version. */
export interface Version {
  /** n counts from 0, the text as the page opened it. */
  n: number;
  rules: string;
  savedAt: Date;
}

/** VersionHistory records versions, skipping a save that changed nothing. */
export class VersionHistory {
  readonly #versions: Version[] = [];

  /** record adds rules as the next version and returns it, or the last one when the text is unchanged. */
  record(rules: string, at: Date): Version {
    const last = this.#versions[this.#versions.length - 1];
    if (last && last.rules === rules) return last;
    const v = { n: this.#versions.length, rules, savedAt: at };
    this.#versions.push(v);
    return v;
  }

  /** list returns the versions, newest first. */
  list(): Version[] {
    return [...this.#versions].reverse();
  }

  /** get returns version n. */
  get(n: number): Version | undefined {
    return this.#versions[n];
  }
}
