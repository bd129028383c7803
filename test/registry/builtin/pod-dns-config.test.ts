// A pod's dnsConfig as upstream's validatePodDNSConfig checks it (pkg/apis/core/validation),
// mainly its search domains: at most 32 of them and 2048 characters joined by spaces (the
// expanded limits), each a DNS subdomain that may hold underscores, a lone "." or a trailing
// dot allowed (RelaxedDNSSearchValidation, locked on). Causes compared with upstream's exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { builtinType, storeCreate } from '../../helpers/store.ts';

const pods = builtinType('pods');
const deployments = builtinType('deployments');

function pod(dnsConfig: Record<string, unknown>, dnsPolicy?: string): KubeObject {
  const spec: Record<string, unknown> = { containers: [{ name: 'app', image: 'nginx:1' }], dnsConfig };
  if (dnsPolicy !== undefined) spec.dnsPolicy = dnsPolicy;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec };
}

/** A cause as one line: its reason, field and message. */
const show = (c: StatusCause) => `${c.reason} ${c.field}: ${c.message}`;

const s = 'spec.dnsConfig.searches';
const subdomainError = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')";
const tooManyError = 'must not have more than 32 search paths';
const tooLongError = 'must not have more than 2048 characters (including spaces) in the search list';

/** `n` distinct short domains: d0.example.com, d1.example.com, ... */
const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example.com`);
/** Eight domains of 250 characters and one of `last`: 8 × 250 + 40 + 8 spaces = 2048 when `last` is 40. */
const longList = (last: number) => [...Array.from({ length: 8 }, (_, i) => 'abcdefghij'[i]!.repeat(250)), 'z'.repeat(last)];
/** The list as upstream prints it in the cause's value. */
const listValue = (list: string[]) => `[${list.map((d) => `"${d}"`).join(',')}]`;

interface Case {
  name: string;
  dnsConfig: Record<string, unknown>;
  dnsPolicy?: string;
  causes: string[];
}

const cases: Case[] = [
  { name: 'ordinary search domains', dnsConfig: { searches: ['svc.cluster.local', 'cluster.local', 'example'] }, causes: [] },
  { name: 'a lone "." is accepted', dnsConfig: { searches: ['.'] }, causes: [] },
  { name: 'a trailing dot is accepted', dnsConfig: { searches: ['example.com.'] }, causes: [] },
  { name: 'underscores are accepted, one may lead a label', dnsConfig: { searches: ['_sip._tcp.example.com', 'my_domain.example', '_a'] }, causes: [] },
  { name: 'searches with dnsPolicy None and a nameserver', dnsPolicy: 'None', dnsConfig: { nameservers: ['10.0.0.10'], searches: ['ns1.svc.cluster.local', '.'] }, causes: [] },
  { name: '32 search domains', dnsConfig: { searches: domains(32) }, causes: [] },
  { name: '2048 characters including spaces', dnsConfig: { searches: longList(40) }, causes: [] },
  { name: 'a 253-character domain with a trailing dot: the dot is trimmed before the length check', dnsConfig: { searches: [`${'a'.repeat(253)}.`] }, causes: [] },

  { name: '33 search domains', dnsConfig: { searches: domains(33) },
    causes: [`FieldValueInvalid ${s}: Invalid value: ${listValue(domains(33))}: ${tooManyError}`] },
  { name: '2049 characters including spaces', dnsConfig: { searches: longList(41) },
    causes: [`FieldValueInvalid ${s}: Invalid value: ${listValue(longList(41))}: ${tooLongError}`] },
  { name: 'too many and too long: the count first', dnsConfig: { searches: [...longList(41), ...domains(25)] }, causes: [
    `FieldValueInvalid ${s}: Invalid value: ${listValue([...longList(41), ...domains(25)])}: ${tooManyError}`,
    `FieldValueInvalid ${s}: Invalid value: ${listValue([...longList(41), ...domains(25)])}: ${tooLongError}`,
  ] },
  { name: 'upper case', dnsConfig: { searches: ['ok.example', 'Example.com'] },
    causes: [`FieldValueInvalid ${s}[1]: Invalid value: "Example.com": ${subdomainError}`] },
  { name: 'an empty domain', dnsConfig: { searches: [''] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: "": ${subdomainError}`] },
  { name: 'two trailing dots: only one is trimmed, and the value shows the trimmed domain', dnsConfig: { searches: ['example.com..'] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: "example.com.": ${subdomainError}`] },
  { name: '"..": trimmed to "."', dnsConfig: { searches: ['..'] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: ".": ${subdomainError}`] },
  { name: 'a leading dot', dnsConfig: { searches: ['.example.com'] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: ".example.com": ${subdomainError}`] },
  { name: 'a label ending in an underscore', dnsConfig: { searches: ['a_.example'] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: "a_.example": ${subdomainError}`] },
  { name: 'two leading underscores', dnsConfig: { searches: ['__a.example'] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: "__a.example": ${subdomainError}`] },
  { name: 'a label starting with a hyphen', dnsConfig: { searches: ['-a.example'] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: "-a.example": ${subdomainError}`] },
  { name: 'a 254-character domain', dnsConfig: { searches: ['a'.repeat(254)] },
    causes: [`FieldValueInvalid ${s}[0]: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`] },
  { name: 'a 254-character domain in upper case: the length, then the form', dnsConfig: { searches: ['A'.repeat(254)] }, causes: [
    `FieldValueInvalid ${s}[0]: Invalid value: "${'A'.repeat(254)}": must be no more than 253 characters`,
    `FieldValueInvalid ${s}[0]: Invalid value: "${'A'.repeat(254)}": ${subdomainError}`,
  ] },
  { name: 'nameservers, then searches, then options', dnsConfig: { nameservers: ['dns.example'], searches: ['Bad'], options: [{ value: '1' }] }, causes: [
    'FieldValueInvalid spec.dnsConfig.nameservers[0]: Invalid value: "dns.example": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    `FieldValueInvalid ${s}[0]: Invalid value: "Bad": ${subdomainError}`,
    'FieldValueRequired spec.dnsConfig.options[0]: Required value: must not be empty',
  ] },
];

for (const c of cases) {
  test(`pod dnsConfig: ${c.name}`, async () => {
    const result = await storeCreate(pods, pod(c.dnsConfig, c.dnsPolicy));
    assert.deepEqual(result.causes.map(show), c.causes);
  });
}

test('a pod template\'s search domains are checked as a pod\'s', async () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }], dnsConfig: { searches: ['.', 'my_svc.local', 'Bad.'] } } };
  const result = await storeCreate(deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
  assert.deepEqual(result.causes.map(show), [
    `FieldValueInvalid spec.template.spec.dnsConfig.searches[2]: Invalid value: "Bad": ${subdomainError}`,
  ]);
});
