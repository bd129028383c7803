// Times as the API writes them.

let memoSecond = Number.NaN;
let memoText = '';

/**
 * RFC 3339 in UTC at whole seconds (`2024-05-06T07:08:09Z`), as metav1.Time serialises:
 * the second that `ms` (default: now) falls in. Writes stamp several times per request
 * with the current second, so the last one formatted is kept.
 */
export function rfc3339Seconds(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== memoSecond) {
    memoText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    memoSecond = second;
  }
  return memoText;
}
