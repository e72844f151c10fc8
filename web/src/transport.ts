// Every request the console and the studio make to Eligo's server goes
// through here: on the origin that served the page, JSON in and out,
// anonymous (no credentials) on the open surface, or as the signed-in
// console session. The session is kept by the server (POST
// /console/session): the browser keeps only its cookie, which scripts
// cannot read, and this module keeps the session's CSRF token in memory;
// neither the key nor the token is ever written to the page's storage. A
// reloaded page asks the server for the token again (GET /console/session).
// The console's calls (api.ts) and the studio's (studio/client.ts) are
// typed over this module, which imports nothing of theirs.

/** The API root, on this origin. */
export const apiRoot = '/api/v1/public';

/** The server's sign-in, who-is-signed-in and sign-out address. */
export const sessionPath = '/console/session';

/** The header that carries the session's CSRF token. */
export const csrfHeader = 'X-CSRF-Token';

/** SessionInfo is GET /console/session's answer (outside the OpenAPI document). */
export interface SessionInfo {
  tenant_id: string;
  key_prefix: string;
  scopes: string[];
  tier: string;
  idle_expires_at: string;
  expires_at: string;
  key_expires_at: string | null;
  csrf_token: string;
}

/**
 * ApiError is a refusal from the server, with a message fit to show and
 * the body it came with (failing tests, problems), for the views that
 * show the detail.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** reason is the refusal's reason code, for choosing what to offer next (never shown). */
  get reason(): string {
    const detail = (this.body as { detail?: { reason_code?: unknown } } | null)?.detail;
    return typeof detail?.reason_code === 'string' ? detail.reason_code : '';
  }
}

/** problemText reads the API's error bodies: a string detail, a problem or a validation list. */
export function problemText(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') {
    return detail;
  }
  if (Array.isArray(detail)) {
    return detail.map((d) => String((d as { msg?: unknown }).msg ?? '')).filter(Boolean).join('; ') || `HTTP ${status}`;
  }
  if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') {
    return (detail as { message: string }).message;
  }
  if (status === 429) {
    return 'Too many requests from this address today; try again later.';
  }
  return `The service answered HTTP ${status}.`;
}

/** csrfToken is the signed-in session's token, in memory only. */
let csrfToken = '';

/**
 * sessionChange settles once the sign-in or sign-out under way has been
 * answered and csrfToken follows it. The browser stores the new cookie as
 * the answer arrives, a moment before this module reads the new token; a
 * session call sent in between would carry the new cookie with the old
 * token and be refused (403), so session calls wait for it.
 */
let sessionChange: Promise<void> = Promise.resolve();

/** changingSession runs a sign-in or sign-out while session calls wait. */
function changingSession(change: () => Promise<void>): Promise<void> {
  const done = sessionChange.then(change);
  sessionChange = done.catch(() => undefined);
  return done;
}

/** bodyOf reads a response's JSON body; null when it has none or it is not JSON. */
async function bodyOf(res: Response): Promise<unknown> {
  if (res.status === 204) return null;
  try {
    return await res.json();
  } catch {
    return null;
  }
}

/** refusal is the ApiError for a response that is not ok. */
async function refusal(res: Response): Promise<ApiError> {
  const body = await bodyOf(res);
  return new ApiError(res.status, problemText(res.status, body), body);
}

async function sessionCall(method: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (csrfToken) headers.set(csrfHeader, csrfToken);
  return fetch(sessionPath, { ...init, method, headers, credentials: 'same-origin', cache: 'no-store' });
}

/**
 * knownSession says whether this page has seen a session: signed in here,
 * or found by currentSession. The applicant console asks it before
 * calling through the session, so that an anonymous visitor's pages make
 * no refused call.
 */
export function knownSession(): boolean {
  return csrfToken !== '';
}

/** currentSession returns who is signed in, or null when no one is; it recovers the session's token. */
export async function currentSession(): Promise<SessionInfo | null> {
  const res = await sessionCall('GET');
  if (res.status === 401) {
    csrfToken = '';
    return null;
  }
  if (!res.ok) throw await refusal(res);
  const info = (await res.json()) as SessionInfo;
  csrfToken = info.csrf_token;
  return info;
}

/** signIn exchanges key for a session; a refused key throws ApiError. */
export function signIn(key: string): Promise<void> {
  return changingSession(async () => {
    const res = await sessionCall('POST', { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: key }) });
    if (!res.ok) throw await refusal(res);
    csrfToken = res.headers.get(csrfHeader) ?? '';
  });
}

/** signOut ends the session on the server. */
export function signOut(): Promise<void> {
  return changingSession(async () => {
    const res = await sessionCall('DELETE');
    if (!res.ok) throw await refusal(res);
    csrfToken = '';
  });
}

/** Answer is an ok response's JSON body and its headers (X-Next-Cursor). */
export interface Answer<T> {
  body: T;
  headers: Headers;
}

/**
 * request calls an operation under the API root: anonymously (no
 * credentials), or, with asSession, as the signed-in session (its cookie,
 * and its CSRF token in the header). An ok answer's JSON body is returned
 * as T, unchecked; a refusal throws ApiError with the API's own message.
 */
export async function request<T>(path: string, init: RequestInit, asSession: boolean): Promise<Answer<T>> {
  let res: Response;
  if (asSession) {
    await sessionChange;
    const headers = new Headers(init.headers);
    headers.set(csrfHeader, csrfToken);
    res = await fetch(apiRoot + path, { ...init, headers, credentials: 'same-origin' });
  } else {
    res = await fetch(apiRoot + path, { credentials: 'omit', ...init });
  }
  if (!res.ok) throw await refusal(res);
  return { body: (await bodyOf(res)) as T, headers: res.headers };
}
