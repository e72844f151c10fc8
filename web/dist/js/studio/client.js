// The studio's calls: the console session (sign in, who is signed in, sign
// out) and the authoring API through it. The API key is sent once, to sign
// in, and kept nowhere; the session lives in an HttpOnly cookie the page
// cannot read, and the CSRF token every call must carry is held in this
// object's memory only (a reload reads it again from GET /console/session).
import { ApiError, apiRoot, problemText } from '../api.js';
/** The console session's address (outside the API root). */
export const sessionPath = '/console/session';
/** The header carrying the session's anti-forgery token. */
export const csrfHeader = 'X-CSRF-Token';
async function bodyOf(res) {
    if (res.status === 204)
        return null;
    try {
        return await res.json();
    }
    catch {
        return null;
    }
}
/** StudioClient makes the studio's same-origin calls with the session's token. */
export class StudioClient {
    #csrf = '';
    /** onSignedOut is told when the API says the session has ended (a 401). */
    onSignedOut = () => { };
    /** signIn exchanges an API key for a session; the key is not kept. */
    async signIn(apiKey) {
        const res = await fetch(sessionPath, {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ api_key: apiKey }),
        });
        if (!res.ok)
            throw new ApiError(res.status, problemText(res.status, await bodyOf(res)));
        this.#csrf = res.headers.get(csrfHeader) ?? '';
        const who = await this.who();
        if (!who)
            throw new ApiError(401, 'The sign-in did not hold: the browser may be refusing the session cookie.');
        return who;
    }
    /** who says who is signed in, or null when nobody is; it recovers the token. */
    async who() {
        const res = await fetch(sessionPath, { credentials: 'same-origin' });
        if (res.status === 401) {
            this.#csrf = '';
            return null;
        }
        const body = await bodyOf(res);
        if (!res.ok)
            throw new ApiError(res.status, problemText(res.status, body));
        const who = body;
        this.#csrf = who.csrf_token;
        return who;
    }
    /** signOut ends the session; the token is forgotten whatever the answer. */
    async signOut() {
        const res = await fetch(sessionPath, { method: 'DELETE', credentials: 'same-origin', headers: { [csrfHeader]: this.#csrf } });
        this.#csrf = '';
        if (!res.ok)
            throw new ApiError(res.status, problemText(res.status, await bodyOf(res)));
    }
    /**
     * call makes one authoring API call through the session: JSON in (or a
     * form, for uploads) and out. A refusal becomes an ApiError with the
     * API's own message; a 401 also tells onSignedOut.
     */
    async call(method, path, body, headers = {}) {
        const init = { method, credentials: 'same-origin', headers: { [csrfHeader]: this.#csrf, ...headers } };
        if (body instanceof FormData) {
            init.body = body;
        }
        else if (body !== undefined) {
            init.body = JSON.stringify(body);
            init.headers['Content-Type'] = 'application/json';
        }
        const res = await fetch(apiRoot + path, init);
        const out = await bodyOf(res);
        if (!res.ok) {
            if (res.status === 401)
                this.onSignedOut();
            throw new StudioError(res.status, problemText(res.status, out), out);
        }
        return out;
    }
}
/** StudioError is an ApiError that keeps the refusal's detail (failing tests, problems) to show. */
export class StudioError extends ApiError {
    body;
    constructor(status, message, body) {
        super(status, message);
        this.body = body;
    }
    /** reason is the refusal's reason code, for choosing what to offer next (never shown). */
    get reason() {
        const detail = this.body?.detail;
        return typeof detail?.reason_code === 'string' ? detail.reason_code : '';
    }
}
/** newIdempotencyKey makes a key so a retried create or publish is not done twice. */
export function newIdempotencyKey() {
    return crypto.randomUUID();
}
