// Kubernetes' CEL format library: format.dns1123Label(), format.named('uri') and the rest,
// each a Format whose validate(string) answers optional.none() for a valid value, or the
// list of what is wrong with it, in apimachinery's words.

import { Optional, type Environment } from '@marcbachmann/cel-js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isLabelKey, isLabelValue } from '../api/labels.ts';

export class CelFormat {
  readonly name: string;
  readonly check: (value: string) => string[];
  constructor(name: string, check: (value: string) => string[]) {
    this.name = name;
    this.check = check;
  }
}

class FormatNamespace {}

/** A name prefix (generateName) may end in '-': it is checked as if that were a letter, as upstream's maskTrailingDash. */
const prefixed = (check: (v: string) => string[]) => (v: string) => check(v.length > 1 && v.endsWith('-') ? `${v.slice(0, -1)}a` : v);

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const formats: Record<string, (value: string) => string[]> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isLabelKey,
  dns1123LabelPrefix: prefixed(isDNS1123Label),
  dns1123SubdomainPrefix: prefixed(isDNS1123Subdomain),
  dns1035LabelPrefix: prefixed(isDNS1035Label),
  labelValue: isLabelValue,
  uri: (v) => {
    const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(v) || v.startsWith('/');
    try {
      if (absolute) {
        new URL(v, 'http://placeholder');
        return [];
      }
    } catch {
      // falls through
    }
    return ['invalid URI'];
  },
  uuid: (v) => (uuidPattern.test(v) ? [] : ['does not match the UUID format']),
  byte: (v) => (/^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0 ? [] : ['invalid base64']),
  date: (v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? [] : ['invalid date']),
  datetime: (v) => (/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)) ? [] : ['invalid datetime']),
};

export function registerFormatLibrary(env: Environment): void {
  env.registerType('Format', CelFormat);
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, check] of Object.entries(formats)) {
    const format = new CelFormat(name, check);
    env.registerFunction(`FormatNamespace.${name}(): Format`, () => format);
  }
  env.registerFunction('FormatNamespace.named(string): optional<Format>', (_: FormatNamespace, name: string) => {
    const check = formats[name];
    return check === undefined ? Optional.none() : Optional.of(new CelFormat(name, check));
  });
  env.registerFunction('Format.validate(string): optional<list<string>>', (format: CelFormat, value: string) => {
    const errors = format.check(value);
    return errors.length === 0 ? Optional.none() : Optional.of(errors);
  });
}
