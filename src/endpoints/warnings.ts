// Warning response headers, as upstream's warning recorder writes them
// (apiserver/pkg/endpoints/filters/warning.go, apimachinery/pkg/util/net.NewWarningHeader).

import type { HttpResponse } from './http.ts';

/** Upstream truncates once all warnings together pass 4 Ki runes: each to 256 runes, and drops what still does not fit. */
const totalRunesLimit = 4 * 1024;
const itemRunesLimit = 256;

/** `299 - "text"` with `"` and `\` escaped, as net.NewWarningHeader formats it. */
export function warningHeaderValue(text: string): string {
  return `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

// Control characters make upstream drop a warning rather than send it.
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A function that adds a warning to `res` while its headers are not sent yet: each
 * distinct text once, in the order given. The header carries the UTF-8 bytes of the text
 * (Node writes header strings as Latin-1, so the bytes are passed through that way).
 */
export function warningRecorder(res: HttpResponse): (text: string) => void {
  const texts: string[] = [];
  let runes = 0;
  let truncating = false;
  return (text: string) => {
    if (res.headersSent || text === '' || controlCharacter.test(text) || texts.includes(text)) return;
    let kept = text;
    const length = [...text].length;
    if (!truncating && runes + length > totalRunesLimit) {
      truncating = true;
      for (let i = 0; i < texts.length; i++) texts[i] = truncate(texts[i]!);
      runes = texts.reduce((sum, t) => sum + [...t].length, 0);
    }
    if (truncating) {
      kept = truncate(text);
      const keptLength = [...kept].length;
      if (runes + keptLength > totalRunesLimit) return;
      runes += keptLength;
    } else {
      runes += length;
    }
    texts.push(kept);
    res.setHeader('Warning', texts.map((t) => Buffer.from(warningHeaderValue(t), 'utf8').toString('latin1')));
  };
}

function truncate(text: string): string {
  const runes = [...text];
  return runes.length <= itemRunesLimit ? text : runes.slice(0, itemRunesLimit).join('');
}
