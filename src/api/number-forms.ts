// Numbers a JSON body wrote with a fraction or an exponent (`1.0`, `2e0`, `1.5`). JSON.parse
// gives `1.0` and `1` alike, but upstream's decoding tells them apart: into an interface{}
// (a custom resource) `1` is an int64 and `1.0` a float64, and into a Go integer field
// `1.0` fails ("json: cannot unmarshal number 1.0 into ..."). The decoder notes where such
// numbers were written; this is what it notes, looked up as the value holds them now.

export type ValuePath = readonly (string | number)[];

/** A number written with a fraction or an exponent: where it was, and its text. */
export interface WrittenNumber {
  path: ValuePath;
  text: string;
}

/** The text a value's member was written as, when written with a fraction or an exponent. */
export type NumberTexts = (holder: object, key: string | number) => string | undefined;

/**
 * The numbers of a body written with a fraction or an exponent, in the body's order. A
 * number counts where the value still holds it at its path (a patch or an admission plugin
 * may have moved or replaced it since).
 */
export class NumberForms {
  readonly written: readonly WrittenNumber[];

  constructor(written: readonly WrittenNumber[]) {
    this.written = written;
  }

  /** Those of the numbers `root` still holds where they were written, by the object and key holding each. */
  textsIn(root: unknown): NumberTexts {
    const byHolder = new Map<object, Map<string | number, string>>();
    for (const { path, text } of this.written) {
      const at = holderAt(root, path);
      if (at === undefined || at.holder[at.key as never] !== Number(text)) continue;
      let texts = byHolder.get(at.holder);
      if (texts === undefined) byHolder.set(at.holder, (texts = new Map()));
      texts.set(at.key, text);
    }
    return (holder, key) => byHolder.get(holder)?.get(key);
  }

  /**
   * Notes the integers of `root` written with a fraction or an exponent where it still holds
   * them, as a custom resource's decoding into interface{} makes them float64s
   * (isFloatMember, holdsFloatMember). The note goes with the objects holding them: a copy
   * of them (as a patch or a webhook's change makes) holds plain numbers again, as Go's
   * JSON round trip writes `1`.
   */
  note(root: object): void {
    for (const { path, text } of this.written) {
      const at = holderAt(root, path);
      const value = Number(text);
      if (at === undefined || !Number.isInteger(value) || at.holder[at.key as never] !== value) continue;
      let members = floatMembers.get(at.holder);
      if (members === undefined) floatMembers.set(at.holder, (members = new Map()));
      members.set(at.key, value);
    }
  }
}

/** Integers noted as written with a fraction or an exponent, by the object or array holding each: key → the number. */
const floatMembers = new WeakMap<object, Map<string | number, number>>();

/**
 * Whether `holder[key]` is an integer noted as written with a fraction or an exponent (a
 * float64 to upstream's decoding of a custom resource, where `1` is an int64): not since
 * set to another number.
 */
export function isFloatMember(holder: object, key: string | number): boolean {
  const value = floatMembers.get(holder)?.get(key);
  return value !== undefined && (holder as Record<string | number, unknown>)[key] === value;
}

/**
 * Whether `value` holds, at any depth, an integer noted as written with a fraction or an
 * exponent (but in its member `skip`): what upstream's Semantic.DeepEqual tells from the
 * same integer stored (an int64 when read back).
 */
export function holdsFloatMember(value: unknown, skip?: string): boolean {
  // Iterative: a value may nest as deep as decoding admits.
  const pending: unknown[] = [value];
  for (let top = true; pending.length > 0; top = false) {
    const holder = pending.pop();
    if (typeof holder !== 'object' || holder === null) continue;
    const members = floatMembers.get(holder);
    for (const key of Object.keys(holder)) {
      if (top && key === skip) continue;
      const member = (holder as Record<string, unknown>)[key];
      if (typeof member !== 'number') pending.push(member);
      else if (members !== undefined && isFloatMember(holder, Array.isArray(holder) ? Number(key) : key)) return true;
    }
  }
  return false;
}

/** The object or array holding the value at `path`, and its key there (an array's index a number, whichever a path gives). */
function holderAt(root: unknown, path: ValuePath): { holder: object; key: string | number } | undefined {
  let holder: unknown = root;
  for (let i = 0; i < path.length; i++) {
    if (typeof holder !== 'object' || holder === null) return undefined;
    const key = memberKey(holder, path[i]!);
    if (key === undefined) return undefined;
    if (i === path.length - 1) return { holder, key };
    holder = (holder as Record<string | number, unknown>)[key];
  }
  return undefined;
}

function memberKey(holder: object, segment: string | number): string | number | undefined {
  if (!Array.isArray(holder)) return typeof segment === 'string' && Object.hasOwn(holder, segment) ? segment : undefined;
  const index = typeof segment === 'number' ? segment : /^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : -1;
  return index >= 0 && index < holder.length ? index : undefined;
}
