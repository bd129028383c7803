import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateName } from '../../../src/registry/validation/index.ts';
import type { NameRule } from '../../../src/registry/validation/index.ts';

const subdomainRule =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelRule =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Rule =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const cases: { rule: NameRule; name: string; prefix?: boolean; errors: string[] }[] = [
  { rule: 'dns1123-subdomain', name: 'example.com', errors: [] },
  { rule: 'dns1123-subdomain', name: 'a', errors: [] },
  { rule: 'dns1123-subdomain', name: 'Foo', errors: [subdomainRule] },
  { rule: 'dns1123-subdomain', name: 'foo_bar', errors: [subdomainRule] },
  { rule: 'dns1123-subdomain', name: '-foo', errors: [subdomainRule] },
  { rule: 'dns1123-subdomain', name: 'a'.repeat(253), errors: [] },
  { rule: 'dns1123-subdomain', name: 'a'.repeat(254), errors: ['must be no more than 253 characters'] },
  { rule: 'dns1123-subdomain', name: 'web-', prefix: true, errors: [] },
  { rule: 'dns1123-subdomain', name: 'web-', errors: [subdomainRule] },
  { rule: 'dns1123-label', name: 'kube-system', errors: [] },
  { rule: 'dns1123-label', name: '123-abc', errors: [] },
  { rule: 'dns1123-label', name: 'a.b', errors: ['must not contain dots'] },
  { rule: 'dns1123-label', name: 'A', errors: [labelRule] },
  { rule: 'dns1123-label', name: 'a'.repeat(64), errors: ['must be no more than 63 characters'] },
  { rule: 'dns1123-label', name: 'ns-', prefix: true, errors: [] },
  { rule: 'dns1035-label', name: 'my-svc', errors: [] },
  { rule: 'dns1035-label', name: '1svc', errors: [dns1035Rule] },
  { rule: 'dns1035-label', name: 'a.b', errors: [dns1035Rule] },
  { rule: 'path-segment', name: 'Any_Name:ok', errors: [] },
  { rule: 'path-segment', name: '..', errors: ["may not be '..'"] },
  { rule: 'path-segment', name: '.', errors: ["may not be '.'"] },
  { rule: 'path-segment', name: 'a/b%c', errors: ["may not contain '/'", "may not contain '%'"] },
  { rule: 'path-segment', name: '..', prefix: true, errors: [] },
];

for (const c of cases) {
  test(`${c.rule} ${c.prefix ? 'prefix ' : ''}${JSON.stringify(c.name.length > 20 ? `${c.name.slice(0, 8)}…(${c.name.length})` : c.name)} → ${c.errors.length === 0 ? 'valid' : 'invalid'}`, () => {
    assert.deepEqual(validateName(c.name, c.rule, c.prefix ?? false), c.errors);
  });
}
