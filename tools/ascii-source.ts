// The start-up bundle's modules in ASCII. esbuild writes strings and identifiers in ASCII
// escapes, but keeps some comments and regular expression literals as written; one
// character past ASCII ('→' in a comment, 'µs' in a pattern) makes V8 hold the whole
// module's source as a two-byte string: twice its memory, and slower to decode and scan
// at every start (~9 ms of `plinth serve`'s start for the two largest modules).

/**
 * `text` with every character past ASCII written as a \uXXXX escape (a pair of them past
 * the BMP), which means the same character in a comment, a string, an identifier and a
 * regular expression literal with or without the u flag; undefined when it is ASCII
 * already, or when such a character follows a backslash (an escape of its own, which the
 * rewrite would change), so that the file is left as written.
 */
export function asciiSource(text: string): string | undefined {
  let unsafe = false;
  const out = text.replace(/[^\x00-\x7f]/g, (char, offset: number) => {
    if (text.charCodeAt(offset - 1) === 0x5c) unsafe = true;
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return out !== text && !unsafe ? out : undefined;
}
