// Checking the rules as they are typed: each pause in typing sends the
// editor's text to POST .../draft/check (the language server's own checks,
// docs/authoring.md), and the answer is shown only if it is still about
// the text in the editor, so a later keystroke always wins over an answer
// that arrives late.

import type { StudioClient } from './client.js';
import type { DraftCheck } from './diagnostics.js';

/** checkDelay is how long typing must pause before the text is checked, in milliseconds. */
export const checkDelay = 400;

/**
 * LiveCheck checks a text some time after it last changed. Its answers go
 * to onAnswer (with the text they are about) only while current() still returns the text they are about
 * and no later check has been asked for.
 */
export class LiveCheck {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #asked = 0;
  #checked: string | null = null;

  constructor(
    private readonly check: (text: string) => Promise<DraftCheck>,
    private readonly current: () => string,
    private readonly onAnswer: (check: DraftCheck, text: string) => void,
    private readonly delay = checkDelay,
  ) {}

  /** changed asks for the current text to be checked once typing pauses. */
  changed(): void {
    clearTimeout(this.#timer);
    this.#asked++;
    this.#timer = setTimeout(() => void this.now(), this.delay);
  }

  /** now checks the current text at once, unless it is the text last answered for. */
  async now(): Promise<void> {
    clearTimeout(this.#timer);
    const text = this.current();
    if (text === this.#checked) return;
    const asked = ++this.#asked;
    let answer: DraftCheck;
    try {
      answer = await this.check(text);
    } catch {
      // A check that fails (offline, signed out) shows nothing new: the
      // last answer stays until a save or the next check says otherwise.
      return;
    }
    if (asked !== this.#asked || this.current() !== text) return;
    this.#checked = text;
    this.onAnswer(answer, text);
  }

  /** stop forgets any check asked for and not yet sent, and drops answers still on their way. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#asked++;
  }
}

/** serverCheck is the check of a project's text through the API, in the background (a 401 does not interrupt typing). */
export function serverCheck(client: StudioClient, projectId: string): (text: string) => Promise<DraftCheck> {
  return (rules) => client.call<DraftCheck>('POST', `/projects/${encodeURIComponent(projectId)}/draft/check`, { rules }, {}, { background: true });
}
