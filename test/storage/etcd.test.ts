// The etcd backend runs the shared storage contract against one real etcd member for
// the file; each backend gets its own key namespace, so each test starts "fresh".
import { after, before, describe } from 'node:test';
import { EtcdBackend } from '../../src/storage/etcd.ts';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../helpers/etcd.ts';
import { storageContract } from './contract.ts';

const skip = etcdUnavailable();
let etcd: TestEtcd | undefined;
let stores = 0;

describe('etcd', { skip }, () => {
  before(async () => void (etcd = await startEtcd()));
  after(() => etcd?.stop());
  storageContract('etcd', async (opts) => new EtcdBackend({ servers: [etcd!.url], namespace: `/t${++stores}`, ...opts }));
});
