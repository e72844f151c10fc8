// The console's sign-in page (#/sign-in): an authoring team types its API
// key, which is sent once to the server (transport.ts's signIn) and then
// cleared from the field, or sees who is signed in and signs out.
import { announce, h } from './dom.js';
import { currentSession, signIn, signOut } from './transport.js';
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
