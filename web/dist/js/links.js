// Addresses from the API the console turns into links.
/**
 * safeLink returns url when it is an http or https address, else
 * undefined: a source's address becomes a link only when following it
 * can do nothing but open a page (never a javascript: or data: URL).
 */
export function safeLink(url) {
    return url && /^https?:\/\/[^\s]+$/i.test(url) ? url : undefined;
}
