// The Format button's one call. The canonical layout is the compiler's
// (`eligo fmt`), so the console never formats by itself: it asks the API
// (POST /projects/{id}/draft/format with the text, not necessarily saved)
// and shows its answer. Until the API offers the operation, formatRules
// answers null and the editor leaves the button out.
/** formatAvailable says whether this console's API formats drafts. */
export const formatAvailable = false;
/** formatRules asks the API for the canonical layout of rules; null where the API has no such operation. */
export async function formatRules(client, projectId, rules) {
    if (!formatAvailable)
        return null;
    return client.call('POST', `/projects/${encodeURIComponent(projectId)}/draft/format`, { rules_text: rules });
}
