// Counts how often JSON text holding a marker is decoded (and, when asked, encoded), for
// tests that assert a path decodes or encodes nothing.

export interface JsonSpy {
  /** JSON.parse calls on text holding the marker (and JSON.stringify calls making such text, when counted). */
  readonly count: number;
  /** Puts JSON.parse and JSON.stringify back. */
  restore(): void;
}

export function spyOnJson(marker: string, opts: { stringify?: boolean } = {}): JsonSpy {
  const { parse, stringify } = JSON;
  let count = 0;
  JSON.parse = ((text: string, reviver?: (key: string, value: unknown) => unknown) => {
    if (typeof text === 'string' && text.includes(marker)) count++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  if (opts.stringify === true) {
    JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
      const text = (stringify as (...args: unknown[]) => string | undefined)(value, ...rest);
      if (typeof text === 'string' && text.includes(marker)) count++;
      return text;
    }) as typeof JSON.stringify;
  }
  return {
    get count() {
      return count;
    },
    restore() {
      JSON.parse = parse;
      JSON.stringify = stringify;
    },
  };
}
