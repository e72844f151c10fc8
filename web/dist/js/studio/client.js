// The studio's calls: the authoring API through the console session. The
// session itself (sign in, who is signed in, sign out, and the CSRF token
// held in memory only) is the console's, in ../session.ts; this client adds
// JSON in and out, the API's refusals with their detail, and telling the
// studio when the session has ended.
import { ApiError, problemText } from '../api.js';
import { currentSession, sessionFetch, signIn, signOut } from '../session.js';
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
/** signedOutMessage says why a call was refused when the session has ended. */
export const signedOutMessage = 'You are no longer signed in (a session ends after 30 minutes without use, or 12 hours in all). Sign in again to go on.';
/** StudioClient makes the studio's same-origin calls as the signed-in session. */
export class StudioClient {
    /** onSignedOut is told when the API says the session has ended (a 401). */
    onSignedOut = () => { };
    /** signIn exchanges an API key for a session (the key is not kept) and says who signed in. */
    async signIn(apiKey) {
        await signIn(apiKey);
        const who = await currentSession();
        if (!who)
            throw new ApiError(401, 'The sign-in did not hold: the browser may be refusing the session cookie.');
        return who;
    }
    /** who says who is signed in, or null when nobody is; it recovers the session's token. */
    who() {
        return currentSession();
    }
    /** signOut ends the session. */
    signOut() {
        return signOut();
    }
    /**
     * call makes one authoring API call through the session: JSON in (or a
     * form, for uploads) and out. A refusal becomes a StudioError with the
     * API's own message; a 401 also tells onSignedOut, unless the call is
     * in the background (a check as the author types): the sign-in then
     * waits for something the author asked for, so typing is never
     * interrupted by a prompt that takes the focus.
     */
    async call(method, path, body, headers = {}, opts = {}) {
        const init = { method, headers: { ...headers } };
        if (body instanceof FormData) {
            init.body = body;
        }
        else if (body !== undefined) {
            init.body = JSON.stringify(body);
            init.headers['Content-Type'] = 'application/json';
        }
        const res = await sessionFetch(path, init);
        const out = await bodyOf(res);
        if (!res.ok) {
            if (res.status === 401) {
                // The API's words here are for programs ("needs an API key in the
                // x-api-key header"); the studio's author needs to know the session ended.
                if (!opts.background)
                    this.onSignedOut();
                throw new StudioError(401, signedOutMessage, out);
            }
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
