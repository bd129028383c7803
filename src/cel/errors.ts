// Errors the Kubernetes CEL libraries raise during evaluation; cel-js reports a handler's
// throw as the call's error, with this message.

export class CelEvalError extends Error {}

/** An evaluation error's first line, in cel-go's words where cel-js's differ (`no such key: x`). */
export function evaluationErrorText(err: unknown): string {
  const line = ((err as Error)?.message ?? String(err)).split('\n')[0]!;
  return line.replace(/^No such key: /, 'no such key: ');
}

/**
 * A checker error as cel-go prints it: `ERROR: <input>:L:C: message`, then the line and a
 * caret under the offset.
 */
export function checkerError(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1);
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}
