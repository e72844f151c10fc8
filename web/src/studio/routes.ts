// The studio's addresses: hash routes under #/studio, so the server serves
// one page and Back and Forward move between the studio's screens.

/** The screens of one project, in the order the studio's tabs show them. */
export const projectScreens = ['sources', 'generate', 'draft', 'tests', 'review', 'changes', 'publish'] as const;
export type ProjectScreen = (typeof projectScreens)[number];

/** A studio route: the project list (with sign-in), or one screen of a project. */
export type StudioRoute = { kind: 'projects' } | { kind: 'project'; projectId: string; screen: ProjectScreen };

/** parseStudioRoute reads a location hash; null when it is not a studio address. */
export function parseStudioRoute(hash: string): StudioRoute | null {
  if (hash === '#/studio' || hash === '#/studio/' || hash === '#/studio/projects') return { kind: 'projects' };
  const m = /^#\/studio\/projects\/([^/]+)(?:\/([a-z]+))?$/.exec(hash);
  if (!m?.[1]) return null;
  const screen = (m[2] ?? 'draft') as ProjectScreen;
  if (!projectScreens.includes(screen)) return null;
  return { kind: 'project', projectId: decodeURIComponent(m[1]), screen };
}

/** studioHref writes a studio route as a hash address. */
export function studioHref(route: StudioRoute): string {
  if (route.kind === 'projects') return '#/studio';
  return `#/studio/projects/${encodeURIComponent(route.projectId)}/${route.screen}`;
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
