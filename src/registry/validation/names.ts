// Name rules of k8s.io/apimachinery/pkg/util/validation and .../api/validation(/path),
// with upstream's messages.

import { byteLength, isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isLabelKey, isLabelValue, maxLenError, regexError } from '../../api/labels.ts';
import { ipErrors } from './ip.ts';

export { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isLabelKey as isQualifiedName, isLabelValue };

export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment' | 'ip-address';

/** Upstream's path.IsValidPathSegmentName / IsValidPathSegmentPrefix. */
function isValidPathSegmentName(name: string, prefix = false): string[] {
  if (!prefix) {
    for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  }
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/**
 * A generateName prefix may end in '-'; upstream masks the last character before
 * checking (its maskTrailingDash replaces the last two characters with "a").
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** Upstream's ValidateNameFunc for each rule; `prefix` is true for generateName. */
export function validateName(name: string, rule: NameRule, prefix = false): string[] {
  switch (rule) {
    case 'dns1123-subdomain':
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'dns1123-label':
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case 'dns1035-label':
      return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
    case 'path-segment':
      return isValidPathSegmentName(name, prefix);
    case 'ip-address':
      // ValidateIPAddressName ignores `prefix`: the IPAddress strategy's name generator
      // answers the generateName unchanged, so it must be a whole IP address too.
      return ipErrors(name);
  }
}

const dns1123LabelWithUnderscoreFmt = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const dns1123SubdomainWithUnderscoreFmt = `${dns1123LabelWithUnderscoreFmt}(\\.${dns1123LabelWithUnderscoreFmt})*`;
const dns1123SubdomainWithUnderscoreRegexp = new RegExp(`^${dns1123SubdomainWithUnderscoreFmt}$`);
const dns1123SubdomainWithUnderscoreErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";

/** Upstream's IsDNS1123SubdomainWithUnderscore: a DNS subdomain whose labels may hold '_' (and start with one). */
export function isDNS1123SubdomainWithUnderscore(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainWithUnderscoreRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainWithUnderscoreErrMsg, dns1123SubdomainWithUnderscoreFmt, 'example.com'));
  }
  return errs;
}

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRegexp = new RegExp(`^${configMapKeyFmt}$`);
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** A key of a ConfigMap or Secret. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!configMapKeyRegexp.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** An IANA_SVC_NAME: at most 15 characters of [-a-z0-9], at least one letter, no '--', no leading or trailing '-'. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

const percentFmt = '[0-9]+%';

export function isValidPercent(percent: string): string[] {
  return /^[0-9]+%$/.test(percent)
    ? []
    : [regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, '1%', '93%')];
}

const cIdentifierFmt = '[A-Za-z_][A-Za-z0-9_]*';
const cIdentifierRegexp = new RegExp(`^${cIdentifierFmt}$`);
const cIdentifierErrMsg = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'";

/** Upstream's IsCIdentifier: a letter or '_', then letters, digits or '_'. */
export function isCIdentifier(value: string): string[] {
  return cIdentifierRegexp.test(value) ? [] : [regexError(cIdentifierErrMsg, cIdentifierFmt, 'my_name', 'MY_NAME', 'MyName')];
}
