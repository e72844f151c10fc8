// The Format button's one call. The canonical layout is the compiler's
// (`eligo fmt`), so the console never formats by itself: it asks the API
// (POST /projects/{id}/draft/format with the text, not necessarily saved)
// and shows its answer. Until the API offers the operation, formatRules
// answers null and the editor leaves the button out.

import type { StudioClient } from './client.js';

/** The canonical text of a draft, and whether it differs from what was sent. */
export interface Formatted {
  rules: string;
  changed: boolean;
}

/** formatAvailable says whether this console's API formats drafts. */
export const formatAvailable = false;

/** formatRules asks the API for the canonical layout of rules; null where the API has no such operation. */
export async function formatRules(client: StudioClient, projectId: string, rules: string): Promise<Formatted | null> {
  if (!formatAvailable) return null;
  return client.call<Formatted>('POST', `/projects/${encodeURIComponent(projectId)}/draft/format`, { rules_text: rules });
}
