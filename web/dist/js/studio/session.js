// Signing in and out of the studio. The API key is typed into a password
// field, sent once to POST /console/session and then cleared from the
// field; the browser keeps only the session's HttpOnly cookie. The banner
// says who the studio acts as (tenant and key prefix, never the key).
import { announce, h } from '../dom.js';
import { alertBox, busy, errorMessage, field, when } from './ui.js';
/** signInView draws the sign-in page; onSignedIn is called with who signed in. */
export function signInView(client, onSignedIn, reason = '') {
    return [
        h('h1', { tabindex: '-1' }, 'Sign in to the studio'),
        h('p', { class: 'lead' }, 'The studio is where your team turns statute text into a tested, reviewed and published ruleset.'),
        reason ? h('p', { class: 'notice', role: 'status' }, reason) : null,
        signInForm(client, onSignedIn),
    ].filter((x) => x !== null);
}
/** signInForm is the key field and its button; onSignedIn is called with who signed in. */
export function signInForm(client, onSignedIn) {
    const key = field('api-key', 'API key', h('input', { type: 'password', autocomplete: 'off', spellcheck: 'false', class: 'wide', required: true }), 'Your team’s key, starting “elg_”. It is sent once to sign you in and is not stored in this browser.');
    const alert = alertBox('sign-in-error');
    const submit = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
    const form = h('form', {
        id: 'sign-in-form',
        class: 'studio-form',
        onsubmit: (e) => {
            e.preventDefault();
            const text = key.control.value.trim();
            key.setError('');
            alert.clear();
            if (!text) {
                key.setError('Enter the API key.');
                key.control.focus();
                return;
            }
            void busy(submit, async () => {
                try {
                    const who = await client.signIn(text);
                    key.control.value = '';
                    announce(`Signed in to ${who.tenant_id}.`);
                    onSignedIn(who);
                }
                catch (err) {
                    key.control.value = '';
                    alert.show(errorMessage(err));
                    key.control.focus();
                }
            });
        },
    }, key.row, h('div', { class: 'buttons' }, submit), alert.el);
    return form;
}
/** sessionBanner says who the studio acts as, with a way to sign out. */
export function sessionBanner(client, who, onSignedOut) {
    const out = h('button', { type: 'button', class: 'secondary', id: 'sign-out' }, 'Sign out');
    const alert = alertBox('sign-out-error');
    out.addEventListener('click', () => {
        void busy(out, async () => {
            try {
                await client.signOut();
                announce('Signed out.');
                onSignedOut();
            }
            catch (err) {
                alert.show(errorMessage(err));
            }
        });
    });
    return h('section', { class: 'session-banner', 'aria-label': 'Signed in' }, h('p', { id: 'signed-in-as' }, 'Signed in to ', h('strong', {}, who.tenant_id), ' with key ', h('code', {}, who.key_prefix), h('span', { class: 'meta' }, ` · session ends by ${when(who.expires_at)}`)), out, alert.el);
}
