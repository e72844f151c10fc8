// The Format button's one call. The canonical layout is the compiler's
// (`eligo fmt`), so the console never formats by itself: it asks the API
// (format-project-draft, with the editor's text, saved or not) and shows
// its answer. A text that does not parse has no canonical layout: the
// refusal carries its compile errors, in the draft's shape, to place in
// the editor.
import { StudioError } from './client.js';
/** formatRules asks the API for the canonical layout of rules. */
export async function formatRules(client, projectId, rules) {
    try {
        const formatted = await client.call('POST', `/projects/${encodeURIComponent(projectId)}/draft/format`, { rules });
        return { ok: true, formatted };
    }
    catch (err) {
        if (err instanceof StudioError && err.reason === 'rules_do_not_parse') {
            const errors = err.body?.detail?.compile_errors;
            return { ok: false, message: err.message, compileErrors: Array.isArray(errors) ? errors.map(String) : [] };
        }
        throw err;
    }
}
