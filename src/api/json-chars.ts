// The character codes of JSON's structure, for scanners that walk JSON text or bytes
// without parsing it (duplicate-key detection, metadata views, numbers' forms), and where a
// string ends.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;

/** The end (index of the closing quote) of the string of JSON `text` starting at `start` (its opening quote). */
export function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    for (let b = end - 1; text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if ((backslashes & 1) === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}
