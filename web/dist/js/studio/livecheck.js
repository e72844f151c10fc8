// Checking the rules as they are typed: each pause in typing sends the
// editor's text to POST .../draft/check (the language server's own checks,
// docs/authoring.md), and the answer is shown only if it is still about
// the text in the editor, so a later keystroke always wins over an answer
// that arrives late.
/** checkDelay is how long typing must pause before the text is checked, in milliseconds. */
export const checkDelay = 400;
/**
 * LiveCheck checks a text some time after it last changed. Its answers go
 * to onAnswer (with the text they are about) only while current() still returns the text they are about
 * and no later check has been asked for.
 */
export class LiveCheck {
    check;
    current;
    onAnswer;
    delay;
    #timer;
    #asked = 0;
    #checked = null;
    constructor(check, current, onAnswer, delay = checkDelay) {
        this.check = check;
        this.current = current;
        this.onAnswer = onAnswer;
        this.delay = delay;
    }
    /** changed asks for the current text to be checked once typing pauses. */
    changed() {
        clearTimeout(this.#timer);
        this.#asked++;
        this.#timer = setTimeout(() => void this.now(), this.delay);
    }
    /** now checks the current text at once, unless it is the text last answered for. */
    async now() {
        clearTimeout(this.#timer);
        const text = this.current();
        if (text === this.#checked)
            return;
        const asked = ++this.#asked;
        let answer;
        try {
            answer = await this.check(text);
        }
        catch {
            // A check that fails (offline, signed out) shows nothing new: the
            // last answer stays until a save or the next check says otherwise.
            return;
        }
        if (asked !== this.#asked || this.current() !== text)
            return;
        this.#checked = text;
        this.onAnswer(answer, text);
    }
    /** stop forgets any check asked for and not yet sent, and drops answers still on their way. */
    stop() {
        clearTimeout(this.#timer);
        this.#asked++;
    }
}
/** serverCheck is the check of a project's text through the API, in the background (a 401 does not interrupt typing). */
export function serverCheck(client, projectId) {
    return (rules) => client.call('POST', `/projects/${encodeURIComponent(projectId)}/draft/check`, { rules }, {}, { background: true });
}
