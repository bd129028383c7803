// String formats a CRD schema may declare, checked as apiextensions-apiserver checks them
// (pkg/apiserver/validation/formats.go lists the supported ones; kube-openapi's strfmt
// registry does the checking). Unsupported formats are ignored, as upstream strips them.

import { isIP, isIPv4, isIPv6 } from 'node:net';

const uuidPattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3Pattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4Pattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5Pattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
// strfmt.ParseDateTime accepts RFC 3339 with or without fractional seconds, and a zone
// written as Z, ±hh:mm or ±hhmm.
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;
const macPattern = /^(?:[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}|[0-9a-f]{2}(?:[:-][0-9a-f]{2}){7}|[0-9a-f]{2}(?:[:-][0-9a-f]{2}){19}|[0-9a-f]{4}(?:\.[0-9a-f]{4}){2}|[0-9a-f]{4}(?:\.[0-9a-f]{4}){3}|[0-9a-f]{4}(?:\.[0-9a-f]{4}){9})$/i;
const hostnamePattern = /^(?=.{1,255}$)[\p{L}\p{N}\p{S}](?:[\p{L}\p{N}\p{S}-]{0,61}[\p{L}\p{N}\p{S}])?(?:\.[\p{L}\p{N}\p{S}](?:[\p{L}\p{N}\p{S}-]{0,61}[\p{L}\p{N}\p{S}])?)*\.?$/u;
const emailPattern = /^[^\s@<>]+@[^\s@<>]+$/;
const hexColorPattern = /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbColorPattern = /^rgb\(\s*(?:0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(?:0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(?:0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const isbn10Pattern = /^(?:[0-9]{9}X|[0-9]{10})$/;
const isbn13Pattern = /^(?:[0-9]{13})$/;
const creditCardPattern = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const ssnPattern = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const bsonObjectIdPattern = /^[0-9a-f]{24}$/i;
// Go's time.ParseDuration ("1h30m", "-1.5s"), or a number and a unit ("3 days") as strfmt also takes.
const goDurationPattern = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$|^0$/;
const unitDurationPattern = /^(\d+)\s*(ns|nanoseconds?|us|µs|microseconds?|ms|milliseconds?|s|seconds?|m|minutes?|h|hours?|d|days?|w|wks?|weeks?)$/;
const quantityPattern = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;
const k8sShortNamePattern = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const k8sLongNameSegment = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

function validDate(year: string, month: string, day: string): boolean {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

function isDate(s: string): boolean {
  const m = datePattern.exec(s);
  return m !== null && validDate(m[1]!, m[2]!, m[3]!);
}

function isDateTime(s: string): boolean {
  const m = dateTimePattern.exec(s);
  if (m === null || !validDate(m[1]!, m[2]!, m[3]!)) return false;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 61;
}

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(ip);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

function isUri(s: string): boolean {
  // Go's url.ParseRequestURI: an absolute URI or an absolute path.
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    return new URL(s).protocol.length > 1;
  } catch {
    return false;
  }
}

function isIsbn(s: string): boolean {
  const digits = s.replace(/[\s-]/g, '');
  return isbn10Pattern.test(digits) || isbn13Pattern.test(digits);
}

function isK8sLongName(s: string): boolean {
  return s.length > 0 && s.length <= 253 && s.split('.').every((segment) => k8sLongNameSegment.test(segment));
}

/** Checkers by normalised format name (dashes removed, as go-openapi normalises them). */
const checkers: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => bsonObjectIdPattern.test(s),
  uri: isUri,
  email: (s) => emailPattern.test(s),
  hostname: (s) => hostnamePattern.test(s),
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  cidr: isCidr,
  mac: (s) => macPattern.test(s),
  uuid: (s) => uuidPattern.test(s),
  uuid3: (s) => uuid3Pattern.test(s),
  uuid4: (s) => uuid4Pattern.test(s),
  uuid5: (s) => uuid5Pattern.test(s),
  isbn: isIsbn,
  isbn10: (s) => isbn10Pattern.test(s.replace(/[\s-]/g, '')),
  isbn13: (s) => isbn13Pattern.test(s.replace(/[\s-]/g, '')),
  creditcard: (s) => creditCardPattern.test(s.replace(/[^0-9]/g, '')),
  ssn: (s) => ssnPattern.test(s),
  hexcolor: (s) => hexColorPattern.test(s),
  rgbcolor: (s) => rgbColorPattern.test(s),
  byte: (s) => base64Pattern.test(s),
  password: () => true,
  date: isDate,
  duration: (s) => goDurationPattern.test(s) || unitDurationPattern.test(s),
  datetime: isDateTime,
  quantity: (s) => quantityPattern.test(s),
  k8sshortname: (s) => k8sShortNamePattern.test(s),
  k8slongname: isK8sLongName,
};

/** Whether upstream checks the string `format` (go-openapi's names, dashes ignored). */
export function isKnownStringFormat(format: string): boolean {
  return Object.hasOwn(checkers, format.replaceAll('-', ''));
}

/**
 * Whether `value` is valid for the string `format`; undefined when the format is not one
 * upstream checks (it is then ignored).
 */
export function checkStringFormat(format: string, value: string): boolean | undefined {
  const check = checkers[format.replaceAll('-', '')];
  return check === undefined ? undefined : check(value);
}
