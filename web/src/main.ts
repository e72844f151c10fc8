// The console's entry point: the catalogue, the interview on one ruleset,
// signing in, and the authoring studio (#/studio/...), addressed by the URL
// fragment, so that the server serves one page and the browser's Back
// button works.

import { showCatalogue } from './catalogue.js';
import { showInterview } from './interviewview.js';
import { showSignIn } from './signin.js';
import { StudioClient } from './studio/client.js';
import { parseStudioRoute, type StudioRoute } from './studio/routes.js';
import { showStudio } from './studio/studio.js';

/** Page is what the page keeps between views. */
interface Page {
  /** studio is the studio's client; its session token is in memory only, for the page's life. */
  studio: StudioClient;
  /** lastStudio is the studio view drawn last, to tell a change of tab from a new view. */
  lastStudio: StudioRoute | null;
}

/** route draws the view the fragment names: #/studio/..., #/ruleset/<slug or id>, #/rulebook/<id or slug>, #/sign-in or the catalogue. */
async function route(main: HTMLElement, page: Page): Promise<void> {
  const studioRoute = parseStudioRoute(window.location.hash);
  const header = document.getElementById('studio-link');
  header?.toggleAttribute('aria-current', false);
  main.classList.toggle('studio', studioRoute !== null);
  if (studioRoute) {
    header?.setAttribute('aria-current', 'page');
    const sameProject = page.lastStudio?.kind === 'project' && studioRoute.kind === 'project' && page.lastStudio.projectId === studioRoute.projectId;
    page.lastStudio = studioRoute;
    // The studio moves focus itself: to the new view's heading, or to the
    // screen's heading when only the project's tab changed.
    await showStudio(page.studio, main, studioRoute, sameProject);
    return;
  }
  page.lastStudio = null;
  const m = /^#\/(ruleset|rulebook)\/(.+)$/.exec(window.location.hash);
  if (window.location.hash === '#/sign-in') {
    await showSignIn(main);
  } else if (m?.[2]) {
    await showInterview(main, { kind: m[1] === 'rulebook' ? 'rulebook' : 'ruleset', id: decodeURIComponent(m[2]) });
  } else {
    document.title = 'Eligo';
    await showCatalogue(main, '');
  }
  // A new view: move focus to its heading, as a page load would.
  main.querySelector<HTMLElement>('h1')?.focus();
}

const main = document.getElementById('main');
if (main) {
  const page: Page = { studio: new StudioClient(), lastStudio: null };
  window.addEventListener('hashchange', () => void route(main, page));
  // The skip link moves focus without touching the fragment, which names
  // the view.
  document.querySelector('a.skip')?.addEventListener('click', (e) => {
    e.preventDefault();
    main.focus();
  });
  void route(main, page);
}
