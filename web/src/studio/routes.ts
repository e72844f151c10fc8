// The studio's addresses: hash routes under #/studio, so the server serves
// one page and Back and Forward move between the studio's screens.

/** The screens of one project, in the order the studio's tabs show them. */
export const projectScreens = ['sources', 'generate', 'draft', 'tests', 'review', 'changes', 'publish'] as const;
export type ProjectScreen = (typeof projectScreens)[number];

/**
 * A studio route: the project list (with sign-in), one screen of a project,
 * the rulebook list, or one rulebook. On the sources screen, sourceId opens
 * one source's text; params (the address's ?query) say where a screen
 * opens: the rules at a criterion or line, a source at a quote's passage.
 */
export type StudioRoute =
  | { kind: 'projects' }
  | { kind: 'project'; projectId: string; screen: ProjectScreen; sourceId?: string; params?: Record<string, string> }
  | { kind: 'rulebooks' }
  | { kind: 'rulebook'; rulebookId: string };

/** parseStudioRoute reads a location hash; null when it is not a studio address. */
export function parseStudioRoute(hash: string): StudioRoute | null {
  if (hash === '#/studio' || hash === '#/studio/' || hash === '#/studio/projects') return { kind: 'projects' };
  if (hash === '#/studio/rulebooks' || hash === '#/studio/rulebooks/') return { kind: 'rulebooks' };
  const rb = /^#\/studio\/rulebooks\/([^/]+)$/.exec(hash);
  if (rb?.[1]) return { kind: 'rulebook', rulebookId: decodeURIComponent(rb[1]) };
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const m = /^#\/studio\/projects\/([^/?]+)(?:\/([a-z]+)(?:\/([^/?]+))?)?$/.exec(path);
  if (!m?.[1]) return null;
  const screen = (m[2] ?? 'draft') as ProjectScreen;
  if (!projectScreens.includes(screen) || (m[3] && screen !== 'sources')) return null;
  const route: StudioRoute = { kind: 'project', projectId: decodeURIComponent(m[1]), screen };
  if (m[3]) route.sourceId = decodeURIComponent(m[3]);
  if (q >= 0) route.params = Object.fromEntries(new URLSearchParams(hash.slice(q + 1)));
  return route;
}

/** studioHref writes a studio route as a hash address. */
export function studioHref(route: StudioRoute): string {
  if (route.kind === 'projects') return '#/studio';
  if (route.kind === 'rulebooks') return '#/studio/rulebooks';
  if (route.kind === 'rulebook') return `#/studio/rulebooks/${encodeURIComponent(route.rulebookId)}`;
  let href = `#/studio/projects/${encodeURIComponent(route.projectId)}/${route.screen}`;
  if (route.sourceId) href += '/' + encodeURIComponent(route.sourceId);
  const query = new URLSearchParams(route.params ?? {}).toString();
  return query ? href + '?' + query : href;
}

/** sourceHref is the address of a source's text, at the passage of criterion's quote when both are given. */
export function sourceHref(projectId: string, sourceId: string, at?: { criterion: string; quote: string }): string {
  return studioHref({ kind: 'project', projectId, screen: 'sources', sourceId, ...(at ? { params: { criterion: at.criterion, quote: at.quote } } : {}) });
}

/** rulesHref is the address of the rules editor opened at criterion (at the cite of quote in it, when given). */
export function rulesHref(projectId: string, criterion: string, quote?: string): string {
  return studioHref({ kind: 'project', projectId, screen: 'draft', params: quote === undefined ? { criterion } : { criterion, quote } });
}

/** screenFor reads a review check's actionable_via ("PUT /projects/prj_x/draft") as the screen where it is fixed. */
export function screenFor(actionableVia: string): ProjectScreen | null {
  const m = /^[A-Z]+\s+\/projects\/[^/\s]+(\/[^\s?]*)?/.exec(actionableVia.trim());
  if (!m) return null;
  const rest = m[1] ?? '';
  if (rest.startsWith('/draft/diff')) return 'changes';
  if (rest.startsWith('/generate') || rest.startsWith('/guidance')) return 'generate';
  if (rest.startsWith('/draft')) return 'draft';
  if (rest.startsWith('/tests') || rest.startsWith('/suggest')) return 'tests';
  if (rest.startsWith('/sources')) return 'sources';
  if (rest.startsWith('/review')) return 'review';
  if (rest.startsWith('/publish')) return 'publish';
  return null;
}

/** screenTitles are the tabs' labels. */
export const screenTitles: Record<ProjectScreen, string> = {
  sources: 'Sources',
  generate: 'Generate',
  draft: 'Rules',
  tests: 'Tests',
  review: 'Review',
  changes: 'Changes',
  publish: 'Publish',
};
