// Errors the Kubernetes CEL libraries raise during evaluation; cel-js reports a handler's
// throw as the call's error, with this message.

export class CelEvalError extends Error {}

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
