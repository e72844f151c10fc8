// The studio's calls: the authoring API through the console session. The
// requests and the session itself (sign in, who is signed in, sign out,
// and the CSRF token held in memory only) are ../transport.ts's; this
// client adds forms for uploads, the API's refusals with their detail, and
// telling the studio when the session has ended.

import { ApiError, currentSession, request, signIn, signOut } from '../transport.js';
import type { Draft, Who } from './types.js';

/** signedOutMessage says why a call was refused when the session has ended. */
export const signedOutMessage =
  'You are no longer signed in (a session ends after 30 minutes without use, or 12 hours in all). Sign in again to go on.';

/** StudioClient makes the studio's same-origin calls as the signed-in session. */
export class StudioClient {
  /** onSignedOut is told when the API says the session has ended (a 401). */
  onSignedOut: () => void = () => {};

  /** signIn exchanges an API key for a session (the key is not kept) and says who signed in. */
  async signIn(apiKey: string): Promise<Who> {
    await signIn(apiKey);
    const who = await currentSession();
    if (!who) throw new ApiError(401, 'The sign-in did not hold: the browser may be refusing the session cookie.');
    return who;
  }

  /** who says who is signed in, or null when nobody is; it recovers the session's token. */
  who(): Promise<Who | null> {
    return currentSession();
  }

  /** signOut ends the session. */
  signOut(): Promise<void> {
    return signOut();
  }

  /**
   * call makes one authoring API call through the session: JSON in (or a
   * form or a file, for uploads, the file's Content-Type in headers) and out. A refusal becomes a StudioError with the
   * API's own message; a 401 also tells onSignedOut, unless the call is
   * in the background (a check as the author types): the sign-in then
   * waits for something the author asked for, so typing is never
   * interrupted by a prompt that takes the focus.
   */
  async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, opts: { background?: boolean } = {}): Promise<T> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body instanceof FormData || body instanceof Blob) {
      init.body = body;
    } else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
    }
    try {
      return (await request<T>(path, init, true)).body;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 401) {
        // The API's words here are for programs ("needs an API key in the
        // x-api-key header"); the studio's author needs to know the session ended.
        if (!opts.background) this.onSignedOut();
        throw new StudioError(401, signedOutMessage, err.body);
      }
      throw new StudioError(err.status, err.message, err.body);
    }
  }
}

/** StudioError is a refusal of a studio call: an ApiError whose body (failing tests, problems) the studio shows. */
export class StudioError extends ApiError {}

/** loadDraft reads the project's draft; null before the first one (409 no_draft). */
export async function loadDraft(client: StudioClient, projectId: string): Promise<Draft | null> {
  try {
    return await client.call<Draft>('GET', `/projects/${encodeURIComponent(projectId)}/draft`);
  } catch (err) {
    if (err instanceof StudioError && err.status === 409) return null;
    throw err;
  }
}

/** newIdempotencyKey makes a key so a retried create or publish is not done twice. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
