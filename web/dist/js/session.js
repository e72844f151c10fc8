// Signing in: an authoring team exchanges an API key for a session kept by
// the server (POST /console/session). The browser keeps only the session's
// cookie, which scripts cannot read, and this page keeps the session's
// CSRF token in memory; neither the key nor the token is ever written to
// the page's storage. A reloaded page asks the server for the token again
// (GET /console/session).
import { ApiError, apiRoot, problemText } from './api.js';
import { announce, h } from './dom.js';
/** The server's sign-in, who-is-signed-in and sign-out address. */
export const sessionPath = '/console/session';
/** The header that carries the session's CSRF token. */
export const csrfHeader = 'X-CSRF-Token';
/** csrfToken is the signed-in session's token, in memory only. */
let csrfToken = '';
async function sessionCall(method, init = {}) {
    const headers = new Headers(init.headers);
    if (csrfToken)
        headers.set(csrfHeader, csrfToken);
    return fetch(sessionPath, { ...init, method, headers, credentials: 'same-origin', cache: 'no-store' });
}
async function refusal(res) {
    let body = null;
    try {
        body = await res.json();
    }
    catch {
        body = null;
    }
    return new ApiError(res.status, problemText(res.status, body));
}
/**
 * knownSession says whether this page has seen a session: signed in here,
 * or found by currentSession. The applicant console asks it before
 * calling through the session, so that an anonymous visitor's pages make
 * no refused call.
 */
export function knownSession() {
    return csrfToken !== '';
}
/** currentSession returns who is signed in, or null when no one is. */
export async function currentSession() {
    const res = await sessionCall('GET');
    if (res.status === 401) {
        csrfToken = '';
        return null;
    }
    if (!res.ok)
        throw await refusal(res);
    const info = (await res.json());
    csrfToken = info.csrf_token;
    return info;
}
/** signIn exchanges key for a session; a refused key throws ApiError. */
export async function signIn(key) {
    const res = await sessionCall('POST', { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: key }) });
    if (!res.ok)
        throw await refusal(res);
    csrfToken = res.headers.get(csrfHeader) ?? '';
}
/** signOut ends the session on the server. */
export async function signOut() {
    const res = await sessionCall('DELETE');
    if (!res.ok)
        throw await refusal(res);
    csrfToken = '';
}
/**
 * sessionFetch calls an operation under the API root as the signed-in
 * session: the cookie goes with it, and the CSRF token in its header.
 */
export async function sessionFetch(path, init = {}) {
    const headers = new Headers(init.headers);
    headers.set(csrfHeader, csrfToken);
    return fetch(apiRoot + path, { ...init, headers, credentials: 'same-origin' });
}
/** when writes an ISO instant for people: date, minutes and UTC. */
function when(iso) {
    return iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}
/** showSignIn draws the sign-in form, or who is signed in. */
export async function showSignIn(main) {
    document.title = 'Sign in · Eligo';
    let session = null;
    let problem = '';
    try {
        session = await currentSession();
    }
    catch (err) {
        problem = err.message;
    }
    if (session) {
        drawSignedIn(main, session);
    }
    else {
        drawForm(main, problem);
    }
}
function drawForm(main, problem) {
    const input = h('input', {
        type: 'password',
        id: 'api-key',
        name: 'api_key',
        class: 'wide',
        autocomplete: 'off',
        spellcheck: 'false',
        required: true,
        'aria-describedby': 'api-key-hint',
    });
    const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, problem);
    const button = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
    const form = h('form', {
        class: 'search',
        onsubmit: (e) => {
            e.preventDefault();
            button.disabled = true;
            error.textContent = '';
            void signIn(input.value.trim())
                .then(async () => {
                input.value = '';
                const info = await currentSession();
                if (info)
                    drawSignedIn(main, info);
                announce('Signed in.');
            })
                .catch((err) => {
                error.textContent = err.message;
                input.setAttribute('aria-invalid', 'true');
                input.focus();
            })
                .finally(() => {
                button.disabled = false;
            });
        },
    }, h('label', { for: 'api-key' }, 'API key'), input, h('p', { id: 'api-key-hint', class: 'hint' }, 'The key your Eligo administrator gave you, elg_…'), h('div', { class: 'buttons' }, button), error);
    main.replaceChildren(h('h1', { tabindex: '-1' }, 'Sign in'), h('p', { class: 'lead' }, 'Authoring teams sign in with an API key. This server keeps the session; your browser keeps neither the key nor anything it could be recovered from.'), form);
}
function drawSignedIn(main, s) {
    const fact = (term, value) => h('div', {}, h('dt', {}, term), h('dd', {}, value));
    const error = h('p', { id: 'sign-out-error', class: 'error', role: 'alert' });
    const out = h('button', {
        type: 'button',
        id: 'sign-out',
        class: 'secondary',
        onclick: () => {
            void signOut()
                .then(() => {
                drawForm(main, '');
                announce('Signed out.');
                main.querySelector('h1')?.focus();
            })
                .catch((err) => {
                error.textContent = err.message;
            });
        },
    }, 'Sign out');
    main.replaceChildren(h('h1', { tabindex: '-1', id: 'signed-in' }, 'Signed in'), h('dl', { class: 'facts session' }, fact('Tenant', s.tenant_id), fact('Key', s.key_prefix), fact('Tier', s.tier), fact('Scopes', s.scopes.join(', ')), fact('Session ends', `${when(s.expires_at)}, or after 30 minutes without use`), fact('Key expires', s.key_expires_at ? when(s.key_expires_at) : 'never')), h('div', { class: 'buttons' }, out), error);
}
