// What tests read off a Status answer: its causes as `field: message` lines, and the texts
// of its Warning headers (`299 - "text"`, unescaped).
import type { Response } from './server.ts';

/** The answer's Status causes, each as `field: message`. */
export function causesOf(res: Pick<Response, 'json'>): string[] {
  return (res.json?.details?.causes ?? []).map((c: { field?: string; message?: string }) => `${c.field}: ${c.message}`);
}

/** The texts of the answer's warnings, in the order sent. */
export function warningsOf(res: Pick<Response, 'headers'>): string[] {
  const header = res.headers.warning;
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return values.flatMap((v) => [...v.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1')));
}
