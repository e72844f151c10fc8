// What is in force under the project's address: the published ruleset the
// address points at now, whether applicants can use it (public) or only
// the team (private), and archiving it. Making it public opens it to
// applicants in the console's interview; archiving takes it out of the
// catalogue while its decisions stay replayable by id.
import { announce, h } from '../dom.js';
import { interviewHref } from '../catalogue.js';
import { alertBox, busy, confirmDialog, errorMessage } from './ui.js';
/** visibilityWords says who can use a published ruleset. */
export function visibilityWords(visibility) {
    return visibility === 'public' ? 'Public: applicants can use it in the console' : 'Private to your team';
}
/** inForce picks, from a catalogue page, the ruleset an address points at now (null when none). */
export function inForce(list, slug) {
    return list.find((r) => r.slug === slug) ?? null;
}
/**
 * publishedPanel draws what is in force under an address, with its
 * visibility and archive controls; shown, when given, hears what is in
 * force after every redraw (the panel's own buttons included).
 */
export function publishedPanel(client, shown) {
    const heading = h('h3', { id: 'in-force-heading', tabindex: '-1' }, 'In force under this address');
    const body = h('div', { id: 'in-force' });
    const alert = alertBox('in-force-error');
    const el = h('section', { 'aria-labelledby': 'in-force-heading' }, heading, alert.el, body);
    const show = async (slug, moveFocus = false) => {
        const current = await draw(slug, moveFocus);
        shown?.(current);
        return current;
    };
    const draw = async (slug, moveFocus) => {
        alert.clear();
        if (!slug) {
            body.replaceChildren(h('p', {}, 'The rules name no address yet.'));
            return null;
        }
        let current;
        try {
            current = inForce(await client.call('GET', `/rulesets?q=${encodeURIComponent(slug)}&limit=100`), slug);
        }
        catch (err) {
            alert.show(errorMessage(err));
            return null;
        }
        if (!current) {
            body.replaceChildren(h('p', { id: 'in-force-none' }, 'Nothing is in force under ', h('code', {}, slug), ' yet.'));
            if (moveFocus)
                heading.focus();
            return null;
        }
        const r = current;
        const isPublic = r.visibility === 'public';
        const toggle = h('button', { type: 'button', id: isPublic ? 'make-private' : 'make-public', class: isPublic ? 'secondary' : '' }, isPublic ? 'Make it private' : 'Make it public');
        const archive = h('button', { type: 'button', id: 'archive-ruleset', class: 'danger' }, 'Archive');
        const interview = h('p', { id: 'interview-link', hidden: !isPublic }, h('a', { href: interviewHref(r.slug) }, `Open the applicant interview for ${r.slug}`));
        toggle.addEventListener('click', () => {
            void busy(toggle, async () => {
                try {
                    await client.call('PATCH', `/rulesets/${encodeURIComponent(r.ruleset_id)}/visibility`, { visibility: isPublic ? 'private' : 'public' });
                    announce(isPublic ? 'The ruleset is private.' : 'The ruleset is public.');
                    await show(slug);
                    (body.querySelector('#interview-link:not([hidden]) a') ?? body.querySelector('#make-public'))?.focus();
                }
                catch (err) {
                    alert.show(errorMessage(err));
                }
            });
        });
        archive.addEventListener('click', () => {
            void (async () => {
                const ok = await confirmDialog(`Archive ${r.slug}?`, [
                    h('p', {}, `Version ${r.ruleset_version} leaves the catalogue and its address stops answering: applicants and programs calling it by address are refused.`),
                    h('p', {}, 'Decisions already made stay replayable. Publishing again makes the address answer again.'),
                ], 'Archive', 'Keep it');
                if (!ok)
                    return;
                await busy(archive, async () => {
                    try {
                        await client.call('POST', `/rulesets/${encodeURIComponent(r.ruleset_id)}/archive`);
                        announce(`${r.slug} is archived.`);
                        await show(slug, true);
                    }
                    catch (err) {
                        alert.show(errorMessage(err));
                    }
                });
            })();
        });
        body.replaceChildren(h('dl', { class: 'facts' }, h('div', {}, h('dt', {}, 'Ruleset'), h('dd', {}, `${r.name}, version ${r.ruleset_version}`)), h('div', {}, h('dt', {}, 'Address'), h('dd', {}, h('code', {}, r.slug))), h('div', {}, h('dt', {}, 'Visibility'), h('dd', { id: 'in-force-visibility' }, visibilityWords(r.visibility)))), h('div', { class: 'buttons' }, toggle, archive), interview);
        if (moveFocus)
            heading.focus();
        return r;
    };
    return { el, show };
}
