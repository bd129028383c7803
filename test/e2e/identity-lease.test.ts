// The server's identity lease in kube-system, as upstream's APIServerIdentity controllers keep
// it: named after the host, labelled, renewed, a new holder at each start; expired identity
// leases of other servers collected at start, live ones and other leases left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { rmSync } from 'node:fs';
import { parseServeFlags, UsageError } from '../../src/cli/config.ts';
import { apiServerIdentity } from '../../src/registry/identity-lease.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

/** Upstream's derivation, written apart: SHA-256 of the length-prefixed parts, 16 bytes in base32 by BigInt arithmetic. */
function expectedIdentity(host: string): string {
  const prefixed = (text: string) => Buffer.concat([Buffer.from([Buffer.byteLength(text) >> 8, Buffer.byteLength(text) & 255]), Buffer.from(text)]);
  const digest = createHash('sha256').update(Buffer.concat([prefixed(host), prefixed('kube-apiserver')])).digest().subarray(0, 16);
  // 128 bits are 25 whole characters and 3 bits, padded with two zero bits to a 26th.
  let n = BigInt(`0x${digest.toString('hex')}`) << 2n;
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = 'abcdefghijklmnopqrstuvwxyz234567'[Number(n & 31n)]! + out;
    n >>= 5n;
  }
  return `apiserver-${out}`;
}

test('the identity is upstream\'s hash of the host name', () => {
  for (const host of ['control-plane-1', hostname(), 'a']) assert.equal(apiServerIdentity(host), expectedIdentity(host), host);
  assert.match(apiServerIdentity('x'), /^apiserver-[a-z2-7]{26}$/);
});

test('--identity-lease-* flags are checked as upstream\'s', () => {
  const config = parseServeFlags(['--identity-lease-duration-seconds=60', '--identity-lease-renew-interval-seconds=5']);
  assert.deepEqual([config.identityLeaseDurationSeconds, config.identityLeaseRenewIntervalSeconds], [60, 5]);
  assert.throws(() => parseServeFlags(['--identity-lease-duration-seconds=0', '--identity-lease-renew-interval-seconds=-1']), (err: Error) => err instanceof UsageError
    && err.message === "[--identity-lease-duration-seconds should be a positive number, but value '0' provided, --identity-lease-renew-interval-seconds should be a positive number, but value '-1' provided]");
  assert.throws(() => parseServeFlags(['--identity-lease-duration-seconds=1h']), { message: 'invalid argument "1h" for "--identity-lease-duration-seconds" flag: strconv.ParseInt: parsing "1h": invalid syntax' });
});

interface Lease { metadata: { name: string; labels?: Record<string, string> }; spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string } }

test('the lease is made and renewed; a restart holds it anew and collects expired identity leases only', async () => {
  const dataDir = tempDir('plinth-identity-');
  const name = apiServerIdentity(hostname());
  const path = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
  const start = () => startServer({ dataDir, storage: 'sqlite', identityLeaseRenewIntervalSeconds: 1 });
  let server: TestServer | undefined;
  try {
    server = await start();
    const first = await eventually(async () => {
      const got = await server!.request('GET', `${path}/${name}`);
      assert.equal(got.status, 200, got.text);
      return got.json as Lease;
    });
    assert.deepEqual(first.metadata.labels, { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': hostname() });
    assert.match(first.spec.holderIdentity!, new RegExp(`^${name}_[0-9a-f-]{36}$`));
    assert.equal(first.spec.leaseDurationSeconds, 3600);
    assert.match(first.spec.renewTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await eventually(async () => {
      const renewed: Lease = (await server!.request('GET', `${path}/${name}`)).json;
      assert.ok(Date.parse(renewed.spec.renewTime!) > Date.parse(first.spec.renewTime!), 'renewed');
    });
    // Another server's leases: one expired long ago, one live; and a lease that is not an identity lease.
    const lease = (leaseName: string, labels: Record<string, string>, renewTime: string) => ({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: leaseName, labels }, spec: { holderIdentity: 'x', leaseDurationSeconds: 60, renewTime },
    });
    const identity = { 'apiserver.kubernetes.io/identity': 'kube-apiserver' };
    for (const body of [
      lease('apiserver-gone', identity, '2020-01-01T00:00:00.000000Z'),
      lease('apiserver-live', identity, new Date(Date.now() + 3_600_000).toISOString().replace('Z', '000Z')),
      lease('some-controller', {}, '2020-01-01T00:00:00.000000Z'),
    ]) assert.equal((await server.request('POST', path, { body })).status, 201);
    await server.stop();

    server = await start();
    await eventually(async () => assert.equal((await server!.request('GET', `${path}/apiserver-gone`)).status, 404));
    assert.equal((await server.request('GET', `${path}/apiserver-live`)).status, 200, 'a live identity lease stays');
    assert.equal((await server.request('GET', `${path}/some-controller`)).status, 200, 'other leases are not collected');
    const held = await eventually(async () => {
      const again: Lease = (await server!.request('GET', `${path}/${name}`)).json;
      assert.notEqual(again.spec.holderIdentity, first.spec.holderIdentity, 'a new holder at each start');
      return again;
    });
    assert.match(held.spec.holderIdentity!, new RegExp(`^${name}_`));
    const all: { items: Lease[] } = (await server.request('GET', `${path}?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver`)).json;
    assert.deepEqual(all.items.map((l) => l.metadata.name).sort(), ['apiserver-live', name].sort(), 'one lease per host, kept across restarts');
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
