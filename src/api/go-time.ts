// metav1.Time and metav1.MicroTime as a request decodes them: Go's time.Parse with the
// layout each type's UnmarshalJSON uses (RFC 3339; RFC 3339 with exactly six fractional
// digits), and written back as its MarshalJSON writes them (in UTC, at whole seconds or
// microseconds; the zero time as null). A string Go cannot parse fails the request's
// decoding with Go's own ParseError text, which clients see in the 400 answer, so the
// parse follows Go's layout-driven parser step by step rather than a regular expression.

/** The two layouts, as Go's parser walks them: a literal prefix, then an element. */
type Element = '2006' | '01' | '02' | '15' | '04' | '05' | '.000000' | 'Z07:00' | '';
type Layout = { text: string; chunks: readonly (readonly [prefix: string, element: Element])[] };

const dateAndClock = [['', '2006'], ['-', '01'], ['-', '02'], ['T', '15'], [':', '04'], [':', '05']] as const;
const timeLayout: Layout = { text: '2006-01-02T15:04:05Z07:00', chunks: [...dateAndClock, ['', 'Z07:00'], ['', '']] };
const microTimeLayout: Layout = { text: '2006-01-02T15:04:05.000000Z07:00', chunks: [...dateAndClock, ['', '.000000'], ['', 'Z07:00'], ['', '']] };

const hexDigits = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Go's time.quote: bytes below space and every non-ASCII byte as \xNN, `"` and `\` escaped.
 * Written into one buffer: a string grown a character at a time held some 60 times its
 * length until flattened, hundreds of MB for a client's megabyte time.
 */
function goQuote(bytes: string): string {
  const out = Buffer.allocUnsafe(bytes.length * 4 + 2);
  let n = 0;
  out[n++] = 0x22;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) {
      out[n++] = 0x5c;
      out[n++] = 0x78;
      out[n++] = hexDigits[c >> 4]!;
      out[n++] = hexDigits[c & 0xf]!;
    } else {
      if (c === 0x22 || c === 0x5c) out[n++] = 0x5c;
      out[n++] = c;
    }
  }
  out[n++] = 0x22;
  return out.toString('latin1', 0, n);
}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;

/** Go's getnum: one or two digits (two when `fixed`); NaN when there are none. */
function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigit(s, 0)) return [Number.NaN, s];
  if (!isDigit(s, 1)) return fixed ? [Number.NaN, s] : [s.charCodeAt(0) - 0x30, s.slice(1)];
  return [(s.charCodeAt(0) - 0x30) * 10 + s.charCodeAt(1) - 0x30, s.slice(2)];
}

/** Go's time.atoi: an optional sign, then digits only; NaN otherwise. */
function atoi(s: string): number {
  const digits = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
  if (!/^[0-9]*$/.test(digits) || digits.length > 18) return Number.NaN;
  const n = Number(digits);
  return s.startsWith('-') ? -n : n;
}

/** Go's parseNanoseconds over value[0, nbytes): a '.' or ',', then digits (at most nine count). */
function parseNanoseconds(value: string, nbytes: number): { ns: number; range?: string } {
  if (value[0] !== '.' && value[0] !== ',') return { ns: Number.NaN };
  if (nbytes > 10) nbytes = 10;
  const ns = atoi(value.slice(1, nbytes));
  if (Number.isNaN(ns)) return { ns };
  if (ns < 0) return { ns: 0, range: 'fractional second' };
  return { ns: ns * 10 ** (10 - nbytes) };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Seconds since the epoch and nanoseconds of a parsed time, or Go's ParseError text. */
export type ParsedGoTime = { seconds: number; nanos: number; error?: undefined } | { error: string };

/** Go's time.Parse(layout, text), as it fails and as it succeeds (only the instant is kept: the output is in UTC). */
function goParse(layout: Layout, text: string): ParsedGoTime {
  // Go's parser works on the UTF-8 bytes; one character per byte here.
  const avalue = Buffer.from(text, 'utf8').toString('latin1');
  const cannotParse = (valueElem: string, layoutElem: string): ParsedGoTime =>
    ({ error: `parsing time ${goQuote(avalue)} as ${goQuote(layout.text)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}` });
  const message = (text: string): ParsedGoTime => ({ error: `parsing time ${goQuote(avalue)}${text}` });
  let value = avalue;
  let year = 0, month = 0, day = 0, hour = 0, min = 0, sec = 0, nsec = 0, zoneOffset = 0;
  const { chunks } = layout;
  for (let c = 0; c < chunks.length; c++) {
    const [prefix, element] = chunks[c]!;
    if (!value.startsWith(prefix)) return cannotParse(value.slice(firstDifference(value, prefix)), prefix);
    value = value.slice(prefix.length);
    if (element === '') {
      if (value !== '') return message(`: extra text: ${goQuote(value)}`);
      break;
    }
    const hold = value;
    let bad = false;
    let range = '';
    switch (element) {
      case '2006':
        if (value.length < 4 || !isDigit(value, 0)) bad = true;
        else {
          year = atoi(value.slice(0, 4));
          value = value.slice(4);
          bad = Number.isNaN(year);
        }
        break;
      case '01':
        [month, value] = getnum(value, true);
        bad = Number.isNaN(month);
        if (!bad && (month <= 0 || month > 12)) range = 'month';
        break;
      case '02':
        [day, value] = getnum(value, true);
        bad = Number.isNaN(day);
        break;
      case '15':
        [hour, value] = getnum(value, false);
        bad = Number.isNaN(hour);
        if (hour >= 24) range = 'hour';
        break;
      case '04':
        [min, value] = getnum(value, true);
        bad = Number.isNaN(min);
        if (min >= 60) range = 'minute';
        break;
      case '05': {
        [sec, value] = getnum(value, true);
        if (Number.isNaN(sec)) {
          bad = true;
          break;
        }
        if (sec >= 60) {
          range = 'second';
          break;
        }
        // A fraction the layout does not name is taken here, any number of digits.
        if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigit(value, 1) && chunks[c + 1]![1] !== '.000000') {
          let n = 2;
          while (isDigit(value, n)) n++;
          const fraction = parseNanoseconds(value, n);
          nsec = fraction.ns;
          range = fraction.range ?? '';
          value = value.slice(n);
        }
        break;
      }
      case '.000000': {
        if (value.length < 7) {
          bad = true;
          break;
        }
        const fraction = parseNanoseconds(value, 7);
        nsec = fraction.ns;
        bad = Number.isNaN(nsec);
        range = fraction.range ?? '';
        value = value.slice(7);
        break;
      }
      case 'Z07:00': {
        if (value[0] === 'Z') {
          value = value.slice(1);
          break;
        }
        if (value.length < 6 || value[3] !== ':') {
          bad = true;
          break;
        }
        const sign = value[0];
        const [hr] = getnum(value.slice(1, 3), true);
        const [mm] = Number.isNaN(hr) ? [0] : getnum(value.slice(4, 6), true);
        value = value.slice(6);
        bad = Number.isNaN(hr) || Number.isNaN(mm);
        // Offsets of 24 hours or 60 minutes pass, as Go lets them.
        if (hr > 24) range = 'time zone offset hour';
        if (mm > 60) range = 'time zone offset minute';
        zoneOffset = ((hr || 0) * 60 + (mm || 0)) * 60;
        if (sign === '-') zoneOffset = -zoneOffset;
        else if (sign !== '+') bad = true;
        break;
      }
    }
    if (range !== '') return message(`: ${range} out of range`);
    if (bad) return cannotParse(hold, element);
  }
  if (day < 1 || day > daysIn(month, year)) return message(': day out of range');
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, min, sec, 0);
  return { seconds: date.getTime() / 1000 - zoneOffset, nanos: nsec };
}

/** Where Go's skip stops on a literal prefix: the value from its first byte that differs. */
function firstDifference(value: string, prefix: string): number {
  let i = 0;
  while (i < prefix.length && i < value.length && value[i] === prefix[i]) i++;
  return i;
}

/** 0001-01-01T00:00:00Z, Go's zero time, which both types write as null. */
const zeroSeconds = -62135596800;

/** Go's appendInt(year, 4) for the year of a UTC time (years 0 to 10000 occur: an offset moves the year of 0000 or 9999). */
function formatYearAndRest(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  // toISOString writes years outside 0–9999 as ±YYYYYY.
  if (iso[0] !== '+' && iso[0] !== '-') return iso.slice(0, 19);
  const year = Number(iso.slice(0, 7));
  const text = year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0');
  return text + iso.slice(7, 22);
}

/**
 * A metav1.Time string as decoding and encoding it again gives it: in UTC at whole seconds
 * ("2024-01-01T01:00:00.5+01:00" → "2024-01-01T00:00:00Z"), null for the zero time, or
 * Go's parse error.
 */
export function canonicalGoTime(text: string): { value: string | null; error?: undefined } | { error: string } {
  const parsed = goParse(timeLayout, text);
  if (parsed.error !== undefined) return parsed;
  if (parsed.seconds === zeroSeconds && parsed.nanos === 0) return { value: null };
  return { value: `${formatYearAndRest(parsed.seconds)}Z` };
}

/** The same for metav1.MicroTime: six fractional digits on the way in and out. */
export function canonicalGoMicroTime(text: string): { value: string | null; error?: undefined } | { error: string } {
  const parsed = goParse(microTimeLayout, text);
  if (parsed.error !== undefined) return parsed;
  if (parsed.seconds === zeroSeconds && parsed.nanos === 0) return { value: null };
  return { value: `${formatYearAndRest(parsed.seconds)}.${String(Math.floor(parsed.nanos / 1000)).padStart(6, '0')}Z` };
}

const durationUnitNanos: Readonly<Record<string, number>> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Why Go's time.ParseDuration refuses `text`, in its words (`time: invalid duration "x"`,
 * `time: missing unit in duration "5"`, `time: unknown unit "d" in duration "5d"`), or
 * undefined when it parses: signed sequences of decimal numbers, each with a unit, within
 * an int64 of nanoseconds.
 */
export function goDurationError(text: string): string | undefined {
  // time.quote works on the text's UTF-8 bytes.
  const quoted = (t: string) => goQuote(Buffer.from(t, 'utf8').toString('latin1'));
  const invalid = `time: invalid duration ${quoted(text)}`;
  const negative = text.startsWith('-');
  let s = negative || text.startsWith('+') ? text.slice(1) : text;
  if (s === '0') return undefined;
  if (s === '') return invalid;
  let total = 0;
  while (s !== '') {
    const number = /^([0-9]*)(\.([0-9]*))?/.exec(s)!;
    const hasInt = number[1] !== '';
    const hasFraction = number[3] !== undefined && number[3] !== '';
    if (!hasInt && !hasFraction) return invalid;
    s = s.slice(number[0].length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === '') return `time: missing unit in duration ${quoted(text)}`;
    const nanos = durationUnitNanos[unit];
    if (nanos === undefined) return `time: unknown unit ${quoted(unit)} in duration ${quoted(text)}`;
    s = s.slice(unit.length);
    total += Number(number[0]) * nanos;
    // Go's sum is an int64 of nanoseconds: one past it (-2^63 alone allowed) is invalid.
    if (total > 2 ** 63 || (!negative && total >= 2 ** 63)) return invalid;
  }
  return undefined;
}

const durationUnitMs: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration, in milliseconds; throws its error (`time: invalid duration "x"`, `time: unknown unit "d" in duration "5d"`). */
export function goParseDuration(text: string): number {
  const error = goDurationError(text);
  if (error !== undefined) throw new Error(error);
  let total = 0;
  for (const [, number, unit] of text.replace(/^[-+]/, '').matchAll(/([0-9]*(?:\.[0-9]*)?)([^0-9.]+)/g)) total += Number(number) * durationUnitMs[unit!]!;
  return text.startsWith('-') ? -total : total;
}
