// The character codes of JSON's structure, for scanners that walk JSON text or bytes
// without parsing it (duplicate-key detection, metadata views).

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;
