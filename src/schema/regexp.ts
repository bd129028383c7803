// Regular expressions from schemas (`pattern`) in Go's dialect. Upstream compiles and
// matches them with Go's regexp, which is RE2: `(?i)`, `\z` and `[[:alpha:]]` are valid,
// lookaround and backreferences are not, and matching takes linear time whatever the
// pattern. JavaScript's RegExp differs on all of these and backtracks, so a pattern from a
// client is never given to it; RE2JS (a port of RE2) accepts and matches as Go does.

import { RE2JS, RE2JSSyntaxException } from 're2js';

const wholePatternErrors = new Set(['expression too large', 'expression nests too deeply']);

/** A compiled pattern; `test` finds a match anywhere in the value, as Go's MatchString. */
export interface GoRegexp {
  test(value: string): boolean;
}

/** The pattern compiled, or Go's error text (`error parsing regexp: …: \`…\``) when RE2 refuses it. */
export function compileGoRegexp(pattern: string): { regexp: GoRegexp; error?: undefined } | { regexp?: undefined; error: string } {
  try {
    return { regexp: RE2JS.compile(pattern) };
  } catch (err) {
    // Go's syntax.Error always ends with the offending text in backquotes: empty for a
    // trailing backslash, the whole pattern when it is too large or nests too deeply.
    // RE2JS leaves the text out in those cases.
    if (err instanceof RE2JSSyntaxException) {
      const text = err.input ?? (wholePatternErrors.has(err.error) ? pattern : '');
      return { error: `error parsing regexp: ${err.error}: \`${text}\`` };
    }
    return { error: (err as Error).message };
  }
}
