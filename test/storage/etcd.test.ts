// The etcd backend runs the shared storage contract against one real etcd member for
// the file; each backend gets its own key namespace, so each test starts "fresh".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdBackend, progressNotifyReliable } from '../../src/storage/etcd.ts';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../helpers/etcd.ts';
import { storageContract } from './contract.ts';

const skip = etcdUnavailable();
let etcd: TestEtcd | undefined;
let stores = 0;

describe('etcd', { skip }, () => {
  before(async () => void (etcd = await startEtcd()));
  after(() => etcd?.stop());
  test('serverVersion answers the member\'s version, as etcd --version prints it', async () => {
    const backend = new EtcdBackend({ servers: [etcd!.url] });
    try {
      assert.match(await backend.serverVersion(), /^3\.\d+\.\d+/);
    } finally {
      await backend.close();
    }
  });
  storageContract('etcd', async (opts) => new EtcdBackend({ servers: [etcd!.url], namespace: `/t${++stores}`, ...opts }));
});

test('progress notifications are reliable from etcd 3.4.31 and 3.5.13 on', () => {
  const cases: Array<[string, boolean]> = [
    ['3.4.23', false], ['3.4.30', false], ['3.4.31', true], ['3.5.12', false], ['3.5.13', true], ['3.6.0', true], ['3.3.27', false], ['unknown', false],
  ];
  for (const [version, reliable] of cases) assert.equal(progressNotifyReliable(version), reliable, version);
});
