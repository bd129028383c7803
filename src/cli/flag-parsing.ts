// A command line read as kube-apiserver's pflag reads it, and flag values read as Go reads
// them, with both their words for what they refuse: `unknown flag: --nope`, `flag needs an
// argument: --secure-port`, `invalid argument "x" for "--flag" flag: strconv.ParseInt: …`.
import { goQuote, goQuoteList } from '../api/field-errors.ts';
import { goParseDuration } from '../api/go-time.ts';

export { goParseDuration };

/** A command line (or flag value) refused: the command answers it with its usage exit code. */
export class UsageError extends Error {}

/**
 * How a flag takes its values: `string`, the last one given; `bool`, the same, and given
 * bare it means true (pflag's NoOptDefVal); `slice`, pflag's string slices, every value
 * given kept, joined with commas; `array`, every value given kept apart (string arrays
 * and repeatable map flags).
 */
export type FlagKind = 'string' | 'bool' | 'slice' | 'array';

export interface FlagSpec {
  kind: FlagKind;
  /** A one-letter name (`-v`). */
  short?: string;
}

export type FlagValues<S extends Record<string, FlagSpec>> = { -readonly [K in keyof S]?: S[K]['kind'] extends 'array' ? string[] : string };

/**
 * pflag's parse of `args` against `flags`, as kube-apiserver's command takes them:
 * `--name=value`, `--name value` (whatever the value starts with), a bare bool, `-v4`,
 * `-v=4`, `-v 4`; `--` ends the flags; `_` in a name reads as `-` (component-base's
 * WordSepNormalizeFunc); and no positional argument (cobra's check of kube-apiserver's
 * command). `command` names the command in that check's words.
 */
export function parseFlags<S extends Record<string, FlagSpec>>(args: readonly string[], flags: S, command: string): FlagValues<S> {
  const values: Record<string, string | string[]> = {};
  const shorts = new Map(Object.entries(flags).flatMap(([name, spec]) => (spec.short === undefined ? [] : [[spec.short, name] as const])));
  const positionals: string[] = [];
  const set = (name: string, value: string) => {
    const kind = flags[name]!.kind;
    const given = values[name];
    if (kind === 'array') values[name] = [...((given as string[] | undefined) ?? []), value];
    else if (kind === 'slice' && given !== undefined) values[name] = `${given as string},${value}`;
    else values[name] = value;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.length < 2 || arg[0] !== '-') {
      positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg[1] === '-') {
      const body = arg.slice(2);
      if (body[0] === '-' || body[0] === '=') throw new UsageError(`bad flag syntax: ${arg}`);
      const equals = body.indexOf('=');
      const typed = equals < 0 ? body : body.slice(0, equals);
      const name = typed.replaceAll('_', '-');
      const spec = Object.hasOwn(flags, name) ? flags[name] : undefined;
      if (spec === undefined) throw new UsageError(`unknown flag: --${typed}`);
      if (equals >= 0) set(name, body.slice(equals + 1));
      else if (spec.kind === 'bool') set(name, 'true');
      else if (i + 1 < args.length) set(name, args[++i]!);
      else throw new UsageError(`flag needs an argument: ${arg}`);
      continue;
    }
    // Shorthands: each letter a flag until one takes the rest of the word as its value.
    for (let rest = arg.slice(1); rest !== '';) {
      const letter = rest[0]!;
      const name = shorts.get(letter);
      if (name === undefined) throw new UsageError(`unknown shorthand flag: '${letter}' in -${arg.slice(1)}`);
      if (rest.length > 2 && rest[1] === '=') {
        set(name, rest.slice(2));
        rest = '';
      } else if (flags[name]!.kind === 'bool') {
        set(name, 'true');
        rest = rest.slice(1);
      } else if (rest.length > 1) {
        set(name, rest.slice(1));
        rest = '';
      } else if (i + 1 < args.length) {
        set(name, args[++i]!);
        rest = '';
      } else {
        throw new UsageError(`flag needs an argument: '${letter}' in -${arg.slice(1)}`);
      }
    }
  }
  if (positionals.some((arg) => arg !== '')) throw new UsageError(`${goQuote(command)} does not take any arguments, got ${goQuoteList(positionals)}`);
  return values as FlagValues<S>;
}

/** pflag's words for a value its flag refuses: `invalid argument "x" for "--name" flag: <Go's error>`. */
export function invalidFlagValue(flag: string, given: string, reason: string): UsageError {
  return new UsageError(`invalid argument ${goQuote(given)} for ${goQuote(flag.startsWith('-') ? flag : `--${flag}`)} flag: ${reason}`);
}

/** Go's strconv.ParseBool; undefined for what it refuses. */
export function goParseBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** A pflag bool: Go's ParseBool, `otherwise` when not given. */
export function boolFlag(flag: string, given: string | undefined, otherwise: boolean): boolean {
  if (given === undefined) return otherwise;
  const value = goParseBool(given);
  if (value === undefined) throw invalidFlagValue(flag, given, `strconv.ParseBool: parsing ${goQuote(given)}: invalid syntax`);
  return value;
}

/**
 * Go's strconv.ParseInt(text, 0, 64), as pflag's int flags read their values: a sign, a
 * base prefix (`0x`, `0o`, `0b`, or a leading `0` for octal) and underscores between
 * digits; throws its error (`strconv.ParseInt: parsing "x": invalid syntax`, `… value out of range`).
 */
export function goParseInt(text: string): number {
  const fail = (why: string) => new Error(`strconv.ParseInt: parsing ${goQuote(text)}: ${why}`);
  const negative = text.startsWith('-');
  let s = negative || text.startsWith('+') ? text.slice(1) : text;
  let base = 10;
  let prefixed = false;
  if (s.length >= 2 && s[0] === '0') {
    const marker = s[1]!.toLowerCase();
    if (marker === 'x' || marker === 'o' || marker === 'b') {
      base = { x: 16, o: 8, b: 2 }[marker];
      s = s.slice(2);
      prefixed = true;
    } else {
      base = 8;
      s = s.slice(1);
      prefixed = true;
    }
  }
  // Underscores only between digits (or after a base prefix), as Go's underscoreOK allows.
  if (s.includes('_') && (!/^_?[0-9a-zA-Z]+(?:_[0-9a-zA-Z]+)*$/.test(s) || (s.startsWith('_') && !prefixed))) throw fail('invalid syntax');
  const digits = s.replaceAll('_', '');
  if (digits === '' && !(prefixed && base === 8)) throw fail('invalid syntax');
  let value = 0n;
  for (const digit of digits) {
    const d = parseInt(digit, 36);
    if (Number.isNaN(d) || d >= base) throw fail('invalid syntax');
    value = value * BigInt(base) + BigInt(d);
  }
  if (negative) value = -value;
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n)) throw fail('value out of range');
  return Number(value);
}

/** A pflag int (int, int64), undefined when not given. */
export function intFlag(flag: string, given: string | undefined): number | undefined {
  return parsedFlag(flag, given, goParseInt);
}

/** A pflag duration, undefined when not given. */
export function durationFlag(flag: string, given: string | undefined): number | undefined {
  return parsedFlag(flag, given, goParseDuration);
}

/** A flag's value read by `parse`, whose error (Go's words) becomes pflag's invalid argument. */
function parsedFlag(flag: string, given: string | undefined, parse: (text: string) => number): number | undefined {
  if (given === undefined) return undefined;
  try {
    return parse(given);
  } catch (err) {
    throw invalidFlagValue(flag, given, (err as Error).message);
  }
}

/**
 * `err`, marked as the failure of what `flags` name (a file that does not load): the command
 * line tells it as `<flags>: <message>`, a usage error, while its message stays the words
 * callers of serve() match (upstream's, `tls: private key does not match public key`).
 */
export function failureOfFlags(err: unknown, flags: string): Error {
  const error = err instanceof Error ? err : new Error(String(err));
  Object.defineProperty(error, 'flags', { value: flags, enumerable: false, configurable: true });
  return error;
}

/** The flags an error was marked with by failureOfFlags, if any. */
export function flagsOfFailure(err: unknown): string | undefined {
  const flags = (err as { flags?: unknown } | undefined)?.flags;
  return typeof flags === 'string' ? flags : undefined;
}
