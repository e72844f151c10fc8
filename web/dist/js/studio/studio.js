// The studio's frame: who is signed in (or the sign-in form), the project
// list, and for one project its name and the tabs of its screens (sources,
// generate, rules, tests, review, changes, publish); beside the projects,
// the rulebooks (rulebooks.ts). Each screen is drawn by its own module;
// this one only decides which, and where focus goes when it changes.
import { h } from '../dom.js';
import { changesView } from './draftdiff.js';
import { editorView } from './editor.js';
import { generateView } from './generate.js';
import { projectsView } from './projects.js';
import { publishView } from './publish.js';
import { reviewView } from './review.js';
import { rulebooksView, rulebookView } from './rulebooks.js';
import { projectScreens, screenTitles, studioHref } from './routes.js';
import { sessionBanner, signInForm, signInView } from './session.js';
import { sourcesView } from './sources.js';
import { sourceTextView } from './sourceview.js';
import { testsView } from './tests.js';
import { alertBox, errorMessage } from './ui.js';
const screens = {
    sources: sourcesView,
    generate: generateView,
    draft: editorView,
    tests: testsView,
    review: reviewView,
    changes: changesView,
    publish: publishView,
};
/**
 * showStudio draws route into main. focusFirst says whether the view is
 * new (focus its main heading) or a tab of the same project (focus the
 * screen's heading, so a keyboard user lands on what changed).
 */
export async function showStudio(client, main, route, sameProject) {
    const redraw = () => void showStudio(client, main, route, false);
    client.onSignedOut = () => { };
    const who = await client.who().catch(() => null);
    if (!who) {
        document.title = 'Sign in · Eligo studio';
        main.replaceChildren(...signInView(client, redraw));
        main.querySelector('h1')?.focus();
        return;
    }
    const signedOut = () => {
        main.replaceChildren(...signInView(client, redraw, 'You have signed out.'));
        main.querySelector('h1')?.focus();
    };
    const banner = sessionBanner(client, who, signedOut);
    // A session that ends while the author works (30 minutes idle, 12 hours
    // in all) is renewed in place: the sign-in form takes the banner's place
    // and the screen, with whatever is not yet saved, stays as it is.
    client.onSignedOut = () => {
        const current = main.querySelector('.session-banner');
        if (!current || current.id === 'session-ended')
            return;
        const ended = h('section', { class: 'session-banner', id: 'session-ended', 'aria-labelledby': 'session-ended-heading' }, h('h2', { id: 'session-ended-heading', tabindex: '-1' }, 'Your session has ended'), h('p', {}, 'Sign in again to go on; nothing on this page is lost. Then repeat what was refused.'), signInForm(client, (again) => {
            ended.replaceWith(sessionBanner(client, again, signedOut));
        }));
        current.replaceWith(ended);
        ended.querySelector('h2')?.focus();
    };
    if (route.kind === 'rulebooks' || route.kind === 'rulebook') {
        await showRulebooks(client, main, banner, route);
        return;
    }
    if (route.kind === 'projects') {
        document.title = 'Projects · Eligo studio';
        const body = h('div', { id: 'studio-body' });
        main.replaceChildren(banner, h('h1', { tabindex: '-1' }, 'Authoring studio'), studioSections('projects'), body);
        main.querySelector('h1')?.focus();
        await projectsView(client, body);
        return;
    }
    const alert = alertBox('project-error');
    const heading = h('h1', { tabindex: '-1' }, 'Project');
    const body = h('div', { id: 'studio-body', class: 'screen-' + route.screen });
    const tabs = h('nav', { 'aria-label': 'Project screens', class: 'tabs' }, h('ul', {}, ...projectScreens.map((s) => h('li', {}, h('a', { href: studioHref({ kind: 'project', projectId: route.projectId, screen: s }), 'aria-current': s === route.screen ? 'page' : false, id: 'tab-' + s }, screenTitles[s])))));
    main.replaceChildren(banner, h('p', { class: 'crumbs' }, h('a', { href: studioHref({ kind: 'projects' }) }, 'All projects')), heading, tabs, alert.el, body);
    try {
        const project = await client.call('GET', `/projects/${encodeURIComponent(route.projectId)}`);
        heading.textContent = project.name;
        document.title = `${screenTitles[route.screen]} · ${project.name} · Eligo studio`;
    }
    catch (err) {
        alert.show(errorMessage(err));
        heading.focus();
        return;
    }
    // A source's text is drawn on the sources screen; params say where a screen opens.
    const drawing = route.sourceId
        ? sourceTextView(client, route.projectId, route.sourceId, body, route.params)
        : screens[route.screen](client, route.projectId, body, route.params);
    // The screen's heading is drawn first, before its data arrives.
    const target = sameProject ? body.querySelector('h2') : heading;
    (target ?? heading).focus();
    await drawing;
}
/** studioSections are the landing page's two parts: projects (authoring rulesets) and rulebooks (combining them). */
function studioSections(current) {
    const link = (kind, label) => h('li', {}, h('a', { href: studioHref({ kind }), 'aria-current': kind === current ? 'page' : false, id: 'section-' + kind }, label));
    return h('nav', { 'aria-label': 'Studio sections', class: 'tabs' }, h('ul', {}, link('projects', 'Projects'), link('rulebooks', 'Rulebooks')));
}
/** showRulebooks draws the rulebook list, or one rulebook, under the studio's landing tabs. */
async function showRulebooks(client, main, banner, route) {
    const body = h('div', { id: 'studio-body', class: 'screen-rulebooks' });
    if (route.kind === 'rulebooks') {
        document.title = 'Rulebooks · Eligo studio';
        main.replaceChildren(banner, h('h1', { tabindex: '-1' }, 'Authoring studio'), studioSections('rulebooks'), body);
        main.querySelector('h1')?.focus();
        await rulebooksView(client, body);
        return;
    }
    const heading = h('h1', { tabindex: '-1' }, 'Rulebook');
    main.replaceChildren(banner, h('p', { class: 'crumbs' }, h('a', { href: studioHref({ kind: 'rulebooks' }) }, 'All rulebooks')), heading, body);
    heading.focus();
    await rulebookView(client, route.rulebookId, body, heading);
}
