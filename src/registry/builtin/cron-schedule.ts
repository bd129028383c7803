// CronJob schedules and time zones as kube-apiserver checks them: the standard cron syntax
// robfig/cron v3's ParseStandard accepts (with its error texts), and time zone names of the
// tz database (Go's time.LoadLocation), looked up through Node's Intl.

import { goQuote } from '../validation/field.ts';
import { goDurationError } from '../../api/go-time.ts';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const months: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const weekdays: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

// Minute, hour, day of month, month, day of week: the five fields of a standard spec.
const fieldBounds: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: months },
  { min: 0, max: 6, names: weekdays },
];

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

class CronError extends Error {}

/** Go's strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new CronError(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
  const n = Number(s);
  if (Math.abs(n) > 2 ** 63 - 1) throw new CronError(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  return n;
}

/** robfig/cron's mustParseInt: a non-negative integer. */
function parseInt(expr: string): number {
  let n: number;
  try {
    n = atoi(expr);
  } catch (err) {
    throw new CronError(`failed to parse int from ${expr}: ${(err as Error).message}`);
  }
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, bounds: Bounds): number {
  const named = bounds.names?.[expr.toLowerCase()];
  return named ?? parseInt(expr);
}

/** One range of a field: `*`, `?`, `n`, `n-m`, each with an optional `/step`. */
function checkRange(expr: string, bounds: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, bounds);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseInt(rangeAndStep[1]!);
    // "n/step" means "n-max/step".
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < bounds.min) throw new CronError(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new CronError(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

function checkDescriptor(spec: string): void {
  if (descriptors.has(spec)) return;
  if (spec.startsWith('@every ')) {
    const error = goDurationError(spec.slice('@every '.length));
    if (error !== undefined) throw new CronError(`failed to parse duration ${spec}: ${error}`);
    return;
  }
  throw new CronError(`unrecognized descriptor: ${spec}`);
}

/**
 * Why robfig/cron's ParseStandard refuses `spec` (its error text), or undefined when it
 * parses: five fields (minute hour day-of-month month day-of-week) with lists, ranges,
 * steps and month/weekday names, or a descriptor (@hourly, @every 1h30m...).
 */
export function scheduleError(spec: string): string | undefined {
  try {
    if (spec === '') throw new CronError('empty spec string');
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const space = spec.indexOf(' ');
      const name = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
      if (space < 0 || timeZoneError(name) !== undefined) throw new CronError(`provided bad location ${name}: unknown time zone ${name}`);
      spec = spec.slice(space).trim();
    }
    if (spec.startsWith('@')) {
      checkDescriptor(spec);
      return undefined;
    }
    const fields = spec.split(/\s+/).filter((f) => f !== '');
    if (fields.length !== fieldBounds.length) {
      throw new CronError(`expected exactly ${fieldBounds.length} fields, found ${fields.length}: [${fields.join(' ')}]`);
    }
    fields.forEach((field, i) => {
      for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, fieldBounds[i]!);
    });
    return undefined;
  } catch (err) {
    if (err instanceof CronError) return err.message;
    throw err;
  }
}

/**
 * Go's time.LoadLocation error for `name` ("unknown time zone X"), or undefined when the tz
 * database has it. Names are case-sensitive there, as zoneinfo file names are.
 */
export function timeZoneError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  // Intl also takes UTC offsets ("+05", "+0500"), which name no zoneinfo file.
  if (name.startsWith('+') || name.startsWith('-')) return `unknown time zone ${name}`;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${name}`;
  }
  // Intl accepts any letter case; Go does not. A canonical name that equals the given one
  // but for case means a miswritten name (aliases resolve to other names entirely).
  if (canonical !== name && canonical.toLowerCase() === name.toLowerCase()) return `unknown time zone ${name}`;
  return undefined;
}
