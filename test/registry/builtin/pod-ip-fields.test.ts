// A pod spec's legacy IP fields, spec.hostAliases[*].ip and spec.dnsConfig.nameservers[*],
// as upstream's ValidatePodSpec checks them with StrictIPCIDRValidation on (v1.36's default):
// leading zeros and IPv4-mapped IPv6 addresses refused, in Pods and in workloads' pod
// templates alike. Upstream lets no earlier value through (it passes no old IPs for these
// fields), so an object already holding one must be fixed to be updated. An IPv6 address
// not in canonical form stays valid, and is warned of.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, createWarned, updateWarned } from '../../helpers/store.ts';

const pods = builtinType('pods');
const deployments = builtinType('deployments');

type Json = Record<string, unknown>;

const app = { name: 'app', image: 'nginx:1' };
const pod = (spec: Json): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [app], ...spec } });
const deployment = (spec: Json): KubeObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [app], ...spec } } },
});

const invalidIP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

interface Case {
  name: string;
  spec: Json;
  /** The causes, their paths relative to the pod spec. */
  causes: string[];
  warnings?: string[];
}

const cases: Case[] = [
  { name: 'IPv4 and canonical IPv6 addresses', spec: { hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }], dnsConfig: { nameservers: ['10.0.0.10', '2001:db8::53'] } }, causes: [] },
  {
    name: 'an IPv4 address with leading zeros',
    spec: { hostAliases: [{ ip: '010.000.000.001', hostnames: ['a'] }], dnsConfig: { nameservers: ['10.0.0.010'] } },
    causes: [
      'dnsConfig.nameservers[0]: Invalid value: "10.0.0.010": must not have leading 0s',
      'hostAliases[0].ip: Invalid value: "010.000.000.001": must not have leading 0s',
    ],
  },
  {
    name: 'an IPv4-mapped IPv6 address',
    spec: { hostAliases: [{ ip: '::ffff:1.2.3.4', hostnames: ['a'] }], dnsConfig: { nameservers: ['::ffff:10.0.0.10'] } },
    causes: [
      'dnsConfig.nameservers[0]: Invalid value: "::ffff:10.0.0.10": must not be an IPv4-mapped IPv6 address',
      'hostAliases[0].ip: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address',
    ],
  },
  {
    name: 'no IP at all',
    spec: { hostAliases: [{ ip: 'localhost', hostnames: ['a'] }], dnsConfig: { nameservers: ['1.2.3'] } },
    causes: [`dnsConfig.nameservers[0]: Invalid value: "1.2.3": ${invalidIP}`, `hostAliases[0].ip: Invalid value: "localhost": ${invalidIP}`],
  },
  {
    name: 'IPv6 not in canonical form: valid, warned of',
    spec: { hostAliases: [{ ip: '2001:DB8::1', hostnames: ['a'] }], dnsConfig: { nameservers: ['2001:db8:0::53'] } },
    causes: [],
    warnings: [
      'dnsConfig.nameservers[0]: IPv6 address "2001:db8:0::53" should be in RFC 5952 canonical format ("2001:db8::53")',
      'hostAliases[0].ip: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")',
    ],
  },
];

/** The causes of a write, and its warnings, sorted (the order of a write's causes is its validation's, not under test here). */
const sorted = (lines: string[]) => [...lines].sort();

for (const c of cases) {
  test(`a Pod's legacy IP fields: ${c.name}`, async () => {
    const { causes, warnings } = await createWarned(pods, pod(c.spec));
    assert.deepEqual(sorted(fields(causes)), c.causes.map((line) => `spec.${line}`));
    assert.deepEqual(sorted(warnings), (c.warnings ?? []).map((line) => `spec.${line}`));
  });
  test(`a Deployment's pod template's legacy IP fields: ${c.name}`, async () => {
    const { causes, warnings } = await createWarned(deployments, deployment(c.spec));
    assert.deepEqual(sorted(fields(causes)), c.causes.map((line) => `spec.template.spec.${line}`));
    assert.deepEqual(sorted(warnings), (c.warnings ?? []).map((line) => `spec.template.spec.${line}`));
  });
}

test('a Deployment stored with a nameserver now refused cannot be updated until it is fixed: old values are not let through', async () => {
  const { obj: created } = await createWarned(deployments, deployment({ dnsConfig: { nameservers: ['10.0.0.10'] } }));
  const withTemplateSpec = (obj: KubeObject, change: Json): KubeObject => {
    const spec = structuredClone(obj.spec) as { template: { spec: Json } };
    Object.assign(spec.template.spec, change);
    return { ...obj, spec } as KubeObject;
  };
  const stored = withTemplateSpec(created, { dnsConfig: { nameservers: ['010.0.0.10'] } });
  const scaled = { ...stored, spec: { ...(stored.spec as Json), replicas: 2 } };
  assert.deepEqual(fields((await updateWarned(deployments, scaled, stored)).causes), [
    'spec.template.spec.dnsConfig.nameservers[0]: Invalid value: "010.0.0.10": must not have leading 0s',
  ]);
  const fixed = withTemplateSpec(scaled, { dnsConfig: { nameservers: ['10.0.0.10'] } });
  assert.deepEqual((await updateWarned(deployments, fixed, stored)).causes, []);
});
