// Lone UTF-16 surrogates in JSON text, read as Go's encoding/json reads them.

/**
 * The start of a `\u` escape of a surrogate (U+D800 to U+DFFF): the only way JSON text
 * decoded from UTF-8 can hold one, since a surrogate encoded in UTF-8 bytes decodes as
 * U+FFFD already.
 */
const surrogateEscape = /\\u[dD][89a-fA-F]/;

/**
 * An escaped backslash (skipped, so that `\\ud800` stays text), a high surrogate's escape
 * and the low one's that pairs with it (kept), or a surrogate's escape alone.
 */
const escapes = /\\(?:\\|u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|u[dD][c-fC-F][0-9a-fA-F]{2})/g;

/**
 * `text` with every escape of a lone surrogate written `\ufffd`, so that JSON.parse reads
 * the strings kube-apiserver does: Go's encoding/json decodes such an escape as U+FFFD
 * (a high surrogate not followed by a low one's escape, or a low one alone; a valid pair
 * is kept), in keys as in values, as String.prototype.toWellFormed would after the parse.
 * Rewriting the text rather than the parsed value keeps key order and makes two keys that
 * differ only there the same key, as in Go. Text without a surrogate's escape (nearly
 * every body) is returned as it is: text without a backslash (most bodies) after one
 * search for it at memchr's speed, other text after the regular expression's search.
 */
export function replaceLoneSurrogateEscapes(text: string): string {
  if (!text.includes('\\') || !surrogateEscape.test(text)) return text;
  return text.replace(escapes, (escape) => (escape.length === 6 ? '\\ufffd' : escape));
}
