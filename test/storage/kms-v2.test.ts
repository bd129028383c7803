// The KMS v2 envelope transformer and its provider probe against an in-memory key service:
// the stored EncryptedObject, seeds made on key id changes and reused otherwise, writes that
// stop three minutes after the last good status, reads that ask the service once per seed,
// and upstream's messages for every failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import {
  AES_GCM_KEY, decodeEncryptedObject, encodeEncryptedObject, extendedNonceTransformer, HKDF_SHA256_XNONCE_AES_GCM_SEED, KmsV2Provider,
  type KmsDecryptRequest, type KmsService,
} from '../../src/storage/kms-v2.ts';
import { EncryptingBackend, MemoryBackend, transformationStatus } from '../../src/storage/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { decodeEncryptedObject as decodeIndependently, EncryptedObject } from '../helpers/kms-plugin.ts';

const storageKey = '/registry/secrets/ns/s';
const plain = Buffer.from('{"kind":"Secret"}');
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

/** A key service whose "encryption" is a reversible marker, with its answers under the test's control. */
class FakeService implements KmsService {
  keyId = 'k1';
  encryptKeyId: string | undefined;
  healthz = 'ok';
  version = 'v2';
  statusError: string | undefined;
  decryptError: string | undefined;
  annotations = new Map([['example.com', Buffer.from('a')]]);
  calls = { status: 0, encrypt: 0, decrypt: 0 };
  decrypts: KmsDecryptRequest[] = [];
  closed = false;

  async status() {
    this.calls.status++;
    if (this.statusError !== undefined) throw new Error(this.statusError);
    return { version: this.version, healthz: this.healthz, keyId: this.keyId };
  }

  async encrypt(_uid: string, plaintext: Uint8Array) {
    this.calls.encrypt++;
    return { ciphertext: Buffer.concat([Buffer.from('sealed:'), plaintext]), keyId: this.encryptKeyId ?? this.keyId, annotations: this.annotations };
  }

  async decrypt(_uid: string, request: KmsDecryptRequest) {
    this.calls.decrypt++;
    this.decrypts.push(request);
    if (this.decryptError !== undefined) throw new Error(this.decryptError);
    return Buffer.from(request.ciphertext).subarray('sealed:'.length);
  }

  close() {
    this.closed = true;
  }
}

function provider(service: FakeService, clock = { now: 1_000_000 }) {
  return new KmsV2Provider({ name: 'p', service, now: () => clock.now });
}

test('the stored EncryptedObject is upstream\'s message: protobufjs reads what Plinth writes and the other way round', () => {
  const object = {
    encryptedData: Buffer.from('data'), keyId: 'key-1', encryptedDEKSource: Buffer.from('dek'),
    annotations: new Map([['b.example.com', Buffer.from('2')], ['a.example.com', Buffer.from('1')]]), encryptedDEKSourceType: HKDF_SHA256_XNONCE_AES_GCM_SEED,
  };
  const decoded = decodeIndependently(encodeEncryptedObject(object));
  assert.equal(text(decoded.encryptedData), 'data');
  assert.equal(decoded.keyID, 'key-1');
  assert.equal(text(decoded.encryptedDEKSource), 'dek');
  assert.deepEqual(Object.fromEntries(Object.entries(decoded.annotations).map(([k, v]) => [k, text(v)])), { 'a.example.com': '1', 'b.example.com': '2' });
  assert.equal(decoded.encryptedDEKSourceType, 1);
  const theirs = EncryptedObject.encode(EncryptedObject.fromObject({ encryptedData: Buffer.from('x'), keyID: 'k', encryptedDEKSource: Buffer.from('s'), annotations: { 'a.b': Buffer.from('c') } })).finish();
  const ours = decodeEncryptedObject(theirs);
  assert.deepEqual([text(ours.encryptedData), ours.keyId, text(ours.encryptedDEKSource), text(ours.annotations.get('a.b')!), ours.encryptedDEKSourceType], ['x', 'k', 's', 'c', AES_GCM_KEY]);
});

test('stored objects that upstream would refuse are refused with its messages', () => {
  const good = { encryptedData: Buffer.from('d'), keyId: 'k', encryptedDEKSource: Buffer.from('s'), annotations: new Map<string, Uint8Array>(), encryptedDEKSourceType: 1 };
  const cases: Array<[string, Uint8Array, string]> = [
    ['not a message', Buffer.from([0x0a, 0x05, 0x01]), 'proto: cannot parse invalid wire-format data'],
    ['no data', encodeEncryptedObject({ ...good, encryptedData: Buffer.alloc(0) }), 'encrypted data is empty'],
    ['no key id', encodeEncryptedObject({ ...good, keyId: '' }), 'failed to validate key id: keyID is empty'],
    ['a long key id', encodeEncryptedObject({ ...good, keyId: 'k'.repeat(1025) }), 'failed to validate key id: keyID is 1025 bytes, which exceeds the max size of 1024'],
    ['no source', encodeEncryptedObject({ ...good, encryptedDEKSource: Buffer.alloc(0) }), 'failed to validate encrypted DEK source: encrypted DEK source is empty'],
    ['an unknown source type', encodeEncryptedObject({ ...good, encryptedDEKSourceType: 7 }), 'unknown encryptedDEKSourceType: 7'],
    ['an annotation that is not a domain', encodeEncryptedObject({ ...good, annotations: new Map([['single', Buffer.from('x')]]) }),
      'failed to validate annotations: annotations: Invalid value: "single": should be a domain with at least two segments separated by dots'],
  ];
  for (const [name, bytes, message] of cases) assert.throws(() => decodeEncryptedObject(bytes), { message }, name);
});

test('the extended-nonce transformer derives a key per write from the seed and 32 random bytes stored first', () => {
  const seed = randomBytes(32);
  const t = extendedNonceTransformer(seed);
  const stored = t.toStorage(plain, storageKey);
  assert.equal(stored.length, 32 + 12 + plain.length + 16);
  assert.equal(text(t.fromStorage(stored, storageKey)), plain.toString());
  assert.notDeepEqual(Buffer.from(t.toStorage(plain, storageKey)).subarray(0, 32), Buffer.from(stored).subarray(0, 32), 'fresh info per write');
  assert.throws(() => t.fromStorage(stored, '/registry/secrets/ns/other'), { message: 'cipher: message authentication failed' });
  assert.throws(() => t.fromStorage(Buffer.alloc(20), storageKey), { message: 'the stored data was shorter than the required size' });
  assert.throws(() => extendedNonceTransformer(Buffer.alloc(16)), { message: 'invalid seed length 16 used for key generation' });
});

test('a provider primed by a good status writes under its seed, reads its own values without the service, and a fresh one asks once per seed', async () => {
  const service = new FakeService();
  const p = provider(service);
  assert.throws(() => p.transformer.toStorage(plain, storageKey), { message: 'got unexpected nil transformer' }, 'not primed: no writes');
  await p.check();
  assert.deepEqual(service.calls, { status: 1, encrypt: 1, decrypt: 0 });
  const stored = p.transformer.toStorage(plain, storageKey);
  const object = decodeEncryptedObject(stored);
  assert.deepEqual([object.keyId, object.encryptedDEKSourceType, text(object.annotations.get('example.com')!)], ['k1', HKDF_SHA256_XNONCE_AES_GCM_SEED, 'a']);
  assert.equal(text(await p.transformer.fromStorage(stored, storageKey)), plain.toString());
  assert.equal(service.calls.decrypt, 0, 'its own seed is known');

  const restarted = provider(service);
  await restarted.check();
  const reads = await Promise.all([1, 2, 3].map(() => restarted.transformer.fromStorage(stored, storageKey)));
  assert.ok(reads.every((r) => text(r) === plain.toString()));
  assert.equal(service.calls.decrypt, 1, 'concurrent reads of one seed share one Decrypt');
  assert.deepEqual([service.decrypts[0]!.keyId, text(service.decrypts[0]!.annotations.get('example.com')!)], ['k1', 'a'], 'the key id and annotations go back to the plugin');
  await restarted.transformer.fromStorage(stored, storageKey);
  assert.equal(service.calls.decrypt, 1);

  const failing = provider(Object.assign(new FakeService(), { decryptError: 'rpc error: code = Unavailable desc = down' }));
  await failing.check();
  await assert.rejects(async () => failing.transformer.fromStorage(stored, storageKey), { message: 'failed to decrypt DEK, error: rpc error: code = Unavailable desc = down' });
  // The metrics count a failure by the plugin's gRPC code, found through the wrapping as upstream's errors.As finds it.
  const down = Object.assign(new FakeService(), { decrypt: async () => { throw Object.assign(new Error('rpc error: code = Unavailable desc = down'), { grpcCode: 'Unavailable' }); } });
  const unreachable = provider(down);
  await unreachable.check();
  const failure = await Promise.resolve(unreachable.transformer.fromStorage(stored, storageKey)).then(() => undefined, (err: Error) => err);
  assert.equal(transformationStatus(failure), 'Unavailable');
  assert.equal(transformationStatus(new Error('got unexpected nil transformer')), 'unknown-non-grpc');
  assert.equal(transformationStatus(undefined), 'OK');
  const unprimed = provider(new FakeService());
  assert.throws(() => unprimed.transformer.fromStorage(stored, storageKey), { message: 'got unexpected nil transformer' }, 'reads need a primed provider too, as upstream\'s');
});

test('values upstream wrote with a plain AES-GCM data key (before its key derivation) are read', async () => {
  const service = new FakeService();
  const p = provider(service);
  await p.check();
  const dek = randomBytes(32);
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dek, nonce);
  cipher.setAAD(Buffer.from(storageKey));
  const encryptedData = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  const stored = encodeEncryptedObject({ encryptedData, keyId: 'k0', encryptedDEKSource: Buffer.concat([Buffer.from('sealed:'), dek]), annotations: new Map(), encryptedDEKSourceType: AES_GCM_KEY });
  assert.equal(text(await p.transformer.fromStorage(stored, storageKey)), plain.toString());
});

test('a new key id makes a new seed; the same one renews the seed for three minutes; without good statuses writes stop then', async () => {
  const service = new FakeService();
  const clock = { now: 1_000_000 };
  const p = provider(service, clock);
  await p.check();
  const first = p.transformer.toStorage(plain, storageKey);
  clock.now += 19_000;
  await p.check();
  assert.equal(service.calls.status, 1, 'a good answer is kept 20 s');
  clock.now += 2_000;
  await p.check();
  assert.deepEqual([service.calls.status, service.calls.encrypt], [2, 1], 'same key id: the seed stays');

  service.keyId = 'k2';
  clock.now += 21_000;
  await p.check();
  assert.equal(service.calls.encrypt, 2, 'a new seed for the new key id');
  const second = p.transformer.toStorage(plain, storageKey);
  assert.equal(decodeEncryptedObject(second).keyId, 'k2');
  assert.equal(text(await p.transformer.fromStorage(first, storageKey)), plain.toString(), 'the old seed still reads, from the cache');
  assert.equal(service.calls.decrypt, 0);
  const staleRead = (stored: Uint8Array) => {
    let stale = false;
    void p.transformer.fromStorage(stored, storageKey, () => {
      stale = true;
    });
    return stale;
  };
  assert.deepEqual([staleRead(first), staleRead(second)], [true, false], 'sealed under the old key id: stale');

  // The plugin stops answering: writes go on until three minutes after the last good status.
  service.statusError = 'rpc error: code = Unavailable desc = connection refused';
  clock.now += 21_000;
  await assert.rejects(p.check(), { message: 'failed to perform status section of the healthz check for KMS Provider p, error: rpc error: code = Unavailable desc = connection refused' });
  clock.now += 2_000;
  await assert.rejects(p.check());
  assert.equal(service.calls.status, 4, 'a failed answer is kept 3 s');
  assert.equal(decodeEncryptedObject(p.transformer.toStorage(plain, storageKey)).keyId, 'k2', 'still within three minutes');
  const renewedAt = clock.now - 23_000;
  clock.now = renewedAt + 3 * 60_000 + 1;
  const expiry = new Date(renewedAt + 3 * 60_000).toISOString().slice(0, 19);
  assert.throws(() => p.transformer.toStorage(plain, storageKey), (err: Error) => err.message.startsWith(`encryptedDEKSource with keyID hash "sha256:`)
    && err.message.includes(`expired at ${expiry}Z (current time is `));
  assert.equal(text(await p.transformer.fromStorage(second, storageKey)), plain.toString(), 'reads go on');
  service.statusError = undefined;
  await p.check();
  assert.equal(decodeEncryptedObject(p.transformer.toStorage(plain, storageKey)).keyId, 'k2', 'a good status renews the seed');
  assert.equal(service.calls.encrypt, 2);
});

test('unhealthy statuses are reported with upstream\'s words, and a seed the plugin encrypts under another key id is not used', async () => {
  const cases: Array<[string, Partial<FakeService>, string]> = [
    ['healthz', { healthz: 'degraded' }, 'kmsv2 Provider p is not healthy, error: got unexpected healthz status: degraded'],
    ['version', { version: 'v1' }, 'kmsv2 Provider p is not healthy, error: expected KMSv2 API version v2, got v1'],
    ['empty key id', { keyId: '' }, 'kmsv2 Provider p is not healthy, error: got invalid KMSv2 KeyID hash "": keyID is empty'],
    ['both', { healthz: 'x', version: 'v3' }, 'kmsv2 Provider p is not healthy, error: [got unexpected healthz status: x, expected KMSv2 API version v2, got v3]'],
  ];
  for (const [name, settings, message] of cases) {
    const p = provider(Object.assign(new FakeService(), settings));
    await assert.rejects(p.check(), { message }, name);
  }
  const service = Object.assign(new FakeService(), { encryptKeyId: 'other' });
  const p = provider(service);
  await assert.rejects(p.check(), (err: Error) => /^kmsv2 Provider p is not healthy, error: failed to rotate DEK uid="[0-9a-f-]{36}", useSeed=true, errState=got unexpected nil transformer, errGen=<nil>, statusKeyIDHash="sha256:[0-9a-f]{64}", encryptKeyIDHash="sha256:[0-9a-f]{64}", stateKeyIDHash="", expirationTimestamp=0001-01-01T00:00:00Z$/.test(err.message));
  assert.throws(() => p.transformer.toStorage(plain, storageKey), { message: 'got unexpected nil transformer' });
  // The version may not change once seen.
  const pinned = new FakeService();
  const clock = { now: 0 };
  const q = provider(pinned, clock);
  await q.check();
  pinned.version = 'v2beta1';
  clock.now += 60_000;
  await assert.rejects(q.check(), { message: 'kmsv2 Provider p is not healthy, error: KMSv2 API version should not change after the initial status response version v2, got v2beta1' });
});

test('on the encrypting backend: a write the provider cannot make is an Internal storage error; a read it cannot make is a corrupt value', async () => {
  const service = new FakeService();
  const p = provider(service);
  const inner = new MemoryBackend();
  const backend = new EncryptingBackend(inner, () => p.transformer);
  await assert.rejects(backend.create(storageKey, plain), (err: Error & { code?: string }) => err.message === 'got unexpected nil transformer' && err.code === 'Internal');
  await p.check();
  await backend.create(storageKey, plain);
  assert.equal(text((await backend.get(storageKey))!.value), plain.toString());
  // Another server's provider, whose plugin cannot decrypt: the value is answered as unreadable, the list still answers.
  const elsewhere = provider(Object.assign(new FakeService(), { decryptError: 'down' }));
  await elsewhere.check();
  const other = new EncryptingBackend(inner, () => elsewhere.transformer);
  assert.equal((await other.get(storageKey))!.transformError, 'failed to decrypt DEK, error: down');
  assert.deepEqual((await other.list('/registry/secrets/')).items.map((kv) => kv.transformError), ['failed to decrypt DEK, error: down']);
});

test('the provider polls its plugin until closed, then closes the service', async () => {
  const service = new FakeService();
  let now = 0;
  // Each poll finds its last answer old enough to ask again.
  const p = new KmsV2Provider({ name: 'p', service, statusIntervalMs: 5, retryIntervalMs: 5, now: () => (now += 60_000) });
  await p.start();
  // However late the machine runs the timers, the polls keep coming.
  await eventually(() => assert.ok(service.calls.status >= 3, `polled ${service.calls.status} times`));
  const polled = service.calls.status;
  p.close();
  assert.ok(service.closed);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.ok(service.calls.status <= polled + 1, 'no polling after close');
});
