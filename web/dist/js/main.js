// The console's entry point: a page of three views (the catalogue, the
// interview on one ruleset, and signing in) addressed by the URL fragment,
// so that the server serves one page and the browser's Back button works.
import { showCatalogue } from './catalogue.js';
import { showInterview } from './interviewview.js';
import { showSignIn } from './session.js';
/** route draws the view the fragment names: #/ruleset/<slug>, #/sign-in or the catalogue. */
async function route(main) {
    const m = /^#\/ruleset\/(.+)$/.exec(window.location.hash);
    if (window.location.hash === '#/sign-in') {
        await showSignIn(main);
    }
    else if (m?.[1]) {
        await showInterview(main, decodeURIComponent(m[1]));
    }
    else {
        document.title = 'Eligo';
        await showCatalogue(main, '');
    }
    // A new view: move focus to its heading, as a page load would.
    main.querySelector('h1')?.focus();
}
const main = document.getElementById('main');
if (main) {
    window.addEventListener('hashchange', () => void route(main));
    // The skip link moves focus without touching the fragment, which names
    // the view.
    document.querySelector('a.skip')?.addEventListener('click', (e) => {
        e.preventDefault();
        main.focus();
    });
    void route(main);
}
