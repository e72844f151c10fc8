// The studio's addresses: hash routes under #/studio, so the server serves
// one page and Back and Forward move between the studio's screens.
/** The screens of one project, in the order the studio's tabs show them. */
export const projectScreens = ['sources', 'draft', 'tests', 'review', 'publish'];
/** parseStudioRoute reads a location hash; null when it is not a studio address. */
export function parseStudioRoute(hash) {
    if (hash === '#/studio' || hash === '#/studio/' || hash === '#/studio/projects')
        return { kind: 'projects' };
    if (hash === '#/studio/rulebooks' || hash === '#/studio/rulebooks/')
        return { kind: 'rulebooks' };
    const rb = /^#\/studio\/rulebooks\/([^/]+)$/.exec(hash);
    if (rb?.[1])
        return { kind: 'rulebook', rulebookId: decodeURIComponent(rb[1]) };
    const m = /^#\/studio\/projects\/([^/]+)(?:\/([a-z]+))?$/.exec(hash);
    if (!m?.[1])
        return null;
    const screen = (m[2] ?? 'draft');
    if (!projectScreens.includes(screen))
        return null;
    return { kind: 'project', projectId: decodeURIComponent(m[1]), screen };
}
/** studioHref writes a studio route as a hash address. */
export function studioHref(route) {
    if (route.kind === 'projects')
        return '#/studio';
    if (route.kind === 'rulebooks')
        return '#/studio/rulebooks';
    if (route.kind === 'rulebook')
        return `#/studio/rulebooks/${encodeURIComponent(route.rulebookId)}`;
    return `#/studio/projects/${encodeURIComponent(route.projectId)}/${route.screen}`;
}
/** screenFor reads a review check's actionable_via ("PUT /projects/prj_x/draft") as the screen where it is fixed. */
export function screenFor(actionableVia) {
    const m = /^[A-Z]+\s+\/projects\/[^/\s]+(\/[^\s?]*)?/.exec(actionableVia.trim());
    if (!m)
        return null;
    const rest = m[1] ?? '';
    if (rest.startsWith('/draft') || rest.startsWith('/guidance') || rest.startsWith('/generate'))
        return 'draft';
    if (rest.startsWith('/tests') || rest.startsWith('/suggest'))
        return 'tests';
    if (rest.startsWith('/sources'))
        return 'sources';
    if (rest.startsWith('/review'))
        return 'review';
    if (rest.startsWith('/publish'))
        return 'publish';
    return null;
}
/** screenTitles are the tabs' labels. */
export const screenTitles = {
    sources: 'Sources',
    draft: 'Rules',
    tests: 'Tests',
    review: 'Review',
    publish: 'Publish',
};
