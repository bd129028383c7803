// Finds the numbers a JSON body writes with a fraction or an exponent (api/number-forms.ts
// says why they matter), by a scan of the text after JSON.parse accepted it.

import { CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, stringEnd } from '../api/json-chars.ts';
import { NumberForms, type WrittenNumber } from '../api/number-forms.ts';

/**
 * A number with a fraction or an exponent where a value may stand (after `:`, `,` or `[`,
 * before `,`, `}` or `]`). Text inside a string may match too (the scan then finds nothing);
 * an image tag's `nginx:1.25"` does not.
 */
const mayHoldFloatForm = /[:,[]\s*-?\d+(?:\.\d+(?:[eE][+-]?\d+)?|[eE][+-]?\d+)\s*[,}\]]/;

/**
 * The numbers of JSON `text` (valid JSON: call it after JSON.parse accepted the text)
 * written with a fraction or an exponent, or undefined when there are none. The scan is
 * iterative: a body may nest as deep as decoding admits.
 */
export function floatFormNumbers(text: string): NumberForms | undefined {
  if (!mayHoldFloatForm.test(text)) return undefined;
  const written: WrittenNumber[] = [];
  // The path to the value being read; an array's last member is its current index.
  const path: (string | number)[] = [];
  const arrays: boolean[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        path[path.length - 1] = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const array = c === OPEN_BRACKET;
      arrays.push(array);
      path.push(array ? 0 : '');
      expectKey = !array;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      arrays.pop();
      path.pop();
    } else if (c === COMMA) {
      if (arrays[arrays.length - 1] === true) (path[path.length - 1] as number)++;
      else expectKey = true;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      let floatForm = false;
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (d === 0x2e || d === 0x65 || d === 0x45) floatForm = true;
        else if (!(d === 0x2b || d === 0x2d || (d >= 0x30 && d <= 0x39))) break;
      }
      if (floatForm && path.length > 0) written.push({ path: [...path], text: text.slice(i, end) });
      i = end - 1;
    }
  }
  return written.length === 0 ? undefined : new NumberForms(written);
}
