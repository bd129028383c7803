// Encryption at rest: the providers' stored formats (checked against Node's crypto directly),
// the prefix rules of reading, and the EncryptingBackend decorator on the memory backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { EncryptingBackend, MemoryBackend } from '../../src/storage/index.ts';
import {
  aescbcTransformer, aesgcmTransformer, identityTransformer, prefixTransformers, providerPrefix, secretboxTransformer, type LocalValueTransformer, type ValueTransformer,
} from '../../src/storage/value-transformers.ts';

const key32 = Buffer.alloc(32, 7);
const key16 = Buffer.alloc(16, 3);
const storageKey = '/registry/secrets/default/s1';
const plain = Buffer.from('{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s1"},"data":{"a":"Yg=="}}');
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

/** Stored bytes made by Node's crypto as upstream lays them out, independently of the transformers. */
const golden = {
  aescbc(secret: Buffer, data: Buffer): Buffer {
    const iv = randomBytes(16);
    const cipher = createCipheriv(`aes-${secret.length * 8}-cbc`, secret, iv);
    return Buffer.concat([iv, cipher.update(data), cipher.final()]);
  },
  aesgcm(secret: Buffer, data: Buffer, aad: string): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv(`aes-${secret.length * 8}-gcm` as 'aes-256-gcm', secret, nonce);
    cipher.setAAD(Buffer.from(aad));
    return Buffer.concat([nonce, cipher.update(data), cipher.final(), cipher.getAuthTag()]);
  },
};

test('each provider reads the layout upstream stores, and writes one that Node\'s crypto reads back', () => {
  const cases: Array<[string, LocalValueTransformer, Buffer, (stored: Uint8Array) => Buffer]> = [
    ['aescbc, 32-byte key', aescbcTransformer(key32), golden.aescbc(key32, plain), (stored) => {
      const decipher = createDecipheriv('aes-256-cbc', key32, stored.subarray(0, 16));
      return Buffer.concat([decipher.update(stored.subarray(16)), decipher.final()]);
    }],
    ['aescbc, 16-byte key', aescbcTransformer(key16), golden.aescbc(key16, plain), (stored) => {
      const decipher = createDecipheriv('aes-128-cbc', key16, stored.subarray(0, 16));
      return Buffer.concat([decipher.update(stored.subarray(16)), decipher.final()]);
    }],
    ['aesgcm: the storage key is the additional data', aesgcmTransformer(key32), golden.aesgcm(key32, plain, storageKey), (stored) => {
      const decipher = createDecipheriv('aes-256-gcm', key32, stored.subarray(0, 12));
      decipher.setAAD(Buffer.from(storageKey));
      decipher.setAuthTag(stored.subarray(stored.length - 16));
      return Buffer.concat([decipher.update(stored.subarray(12, stored.length - 16)), decipher.final()]);
    }],
    ['secretbox: a 24-byte nonce, then the sealed box', secretboxTransformer(key32),
      (() => { const nonce = randomBytes(24); return Buffer.concat([nonce, xsalsa20poly1305(key32, nonce).encrypt(plain)]); })(),
      (stored) => Buffer.from(xsalsa20poly1305(key32, stored.subarray(0, 24)).decrypt(stored.subarray(24)))],
  ];
  for (const [name, transformer, stored, openIndependently] of cases) {
    assert.equal(text(transformer.fromStorage(stored, storageKey)), plain.toString(), `${name}: reads the golden bytes`);
    const written = transformer.toStorage(plain, storageKey);
    assert.equal(openIndependently(written).toString(), plain.toString(), `${name}: what it writes opens with the algorithm itself`);
    assert.notDeepEqual(Buffer.from(transformer.toStorage(plain, storageKey)), Buffer.from(written), `${name}: a fresh IV or nonce per write`);
  }
  // Sizes: CBC pads to the block, GCM adds nonce and tag, secretbox nonce and tag.
  assert.equal(aescbcTransformer(key32).toStorage(Buffer.alloc(16), storageKey).length, 16 + 32);
  assert.equal(aesgcmTransformer(key32).toStorage(Buffer.alloc(10), storageKey).length, 12 + 10 + 16);
  assert.equal(secretboxTransformer(key32).toStorage(Buffer.alloc(10), storageKey).length, 24 + 16 + 10);
});

test('a value that does not decrypt fails with upstream\'s messages', () => {
  const other = Buffer.alloc(32, 9);
  const cases: Array<[string, () => unknown, string]> = [
    ['aesgcm under another storage key', () => aesgcmTransformer(key32).fromStorage(golden.aesgcm(key32, plain, '/registry/secrets/x/y'), storageKey), 'cipher: message authentication failed'],
    ['aesgcm with another key', () => aesgcmTransformer(other).fromStorage(golden.aesgcm(key32, plain, storageKey), storageKey), 'cipher: message authentication failed'],
    ['aesgcm too short', () => aesgcmTransformer(key32).fromStorage(Buffer.alloc(20), storageKey), 'the stored data was shorter than the required size'],
    ['aescbc not whole blocks', () => aescbcTransformer(key32).fromStorage(Buffer.alloc(16 + 5), storageKey), 'the stored data is not a multiple of the block size'],
    ['aescbc too short', () => aescbcTransformer(key32).fromStorage(Buffer.alloc(8), storageKey), 'the stored data was shorter than the required size'],
    ['secretbox with another key', () => secretboxTransformer(other).fromStorage(secretboxTransformer(key32).toStorage(plain, storageKey), storageKey), 'output array too small'],
    ['identity reading encrypted data', () => identityTransformer.fromStorage(Buffer.from('k8s:enc:aescbc:v1:key1:xyz'), storageKey), 'identity transformer tried to read encrypted data'],
  ];
  for (const [name, read, message] of cases) assert.throws(read, { message }, name);
});

test('prefix transformers: the first provider writes, every one reads its own prefix, identity reads unprefixed data', async () => {
  const chain = (...names: Array<'key1' | 'key2' | 'identity'>) => prefixTransformers(names.map((name) => name === 'identity'
    ? { prefix: providerPrefix('identity', ''), transformer: identityTransformer }
    : { prefix: providerPrefix('aescbc', name), transformer: aescbcTransformer(name === 'key1' ? key32 : key16) }));
  const byKey1 = chain('key1', 'identity').toStorage(plain, storageKey);
  assert.ok(text(byKey1).startsWith('k8s:enc:aescbc:v1:key1:'));
  assert.equal(chain('identity', 'key1').toStorage(plain, storageKey), plain, 'identity first writes the bytes as they are');
  const cases: Array<[string, ValueTransformer, Uint8Array, string]> = [
    ['rotated: key2 writes, key1 still reads', chain('key2', 'key1'), byKey1, plain.toString()],
    ['identity reads plain data after the keys', chain('key1', 'identity'), plain, plain.toString()],
    ['identity first lets the key read encrypted data', chain('identity', 'key1'), byKey1, plain.toString()],
    ['key removed, identity kept', chain('key2', 'identity'), byKey1, 'no matching prefix found'],
    ['plain data without identity', chain('key1'), plain, 'no matching prefix found'],
    ['a matching prefix whose key is wrong', prefixTransformers([{ prefix: providerPrefix('aescbc', 'key1'), transformer: aescbcTransformer(key16) }]), byKey1, 'invalid'],
  ];
  for (const [name, transformer, stored, expected] of cases) {
    let got: string;
    let threw = false;
    try {
      got = text(await transformer.fromStorage(stored, storageKey));
    } catch (err) {
      got = (err as Error).message;
      threw = true;
    }
    // A wrong AES-CBC key mostly breaks the padding; about once in 256 the last byte happens
    // to read as valid padding, and what comes out is garbage (as with upstream's aescbc).
    if (expected === 'invalid' && threw) assert.match(got, /invalid PKCS7|invalid padding/, name);
    else if (expected === 'invalid') assert.notEqual(got, plain.toString(), name);
    else assert.equal(got, expected, name);
  }
});

test('EncryptingBackend encrypts configured keys, decrypts gets, lists and watch events, and marks what it cannot read', async () => {
  const inner = new MemoryBackend();
  const transformer = prefixTransformers([{ prefix: providerPrefix('secretbox', 'k'), transformer: secretboxTransformer(key32) }]);
  const backend = new EncryptingBackend(inner, (key) => (key.startsWith('/registry/secrets/') ? transformer : undefined));
  const watch = backend.watch('/registry/', await backend.currentRevision());
  const rev = await backend.create(storageKey, plain);
  await backend.create('/registry/configmaps/default/c', Buffer.from('{"plain":true}'));
  assert.ok(text((await inner.get(storageKey))!.value).startsWith('k8s:enc:secretbox:v1:k:'), 'stored encrypted');
  assert.equal(text((await inner.get('/registry/configmaps/default/c'))!.value), '{"plain":true}', 'other keys as they are');
  assert.equal(text((await backend.get(storageKey))!.value), plain.toString());
  assert.deepEqual((await backend.list('/registry/secrets/')).items.map((kv) => text(kv.value)), [plain.toString()]);
  await backend.update(storageKey, Buffer.from('{"v":2}'), rev);
  // A value written behind its back, with a key it does not have: marked, not thrown.
  const current = (await inner.get(storageKey))!;
  await inner.update(storageKey, Buffer.from('k8s:enc:secretbox:v1:gone:0123456789012345678901234567890123456789'), current.modRevision);
  const corrupt = (await backend.get(storageKey))!;
  assert.equal(corrupt.transformError, 'no matching prefix found');
  assert.ok(text(corrupt.value).startsWith('k8s:enc:secretbox:v1:gone:'), 'the stored bytes are kept');
  assert.equal((await backend.list('/registry/secrets/')).items[0]!.transformError, 'no matching prefix found');
  await backend.delete(storageKey);
  const events = [];
  for await (const event of watch) {
    events.push(event);
    if (events.length === 5) break;
  }
  assert.deepEqual(events.map((e) => [e.type, e.kv.key, e.kv.transformError === undefined ? text(e.kv.value) : `!${e.kv.transformError}`, e.prev === undefined ? undefined : e.prev.transformError ?? text(e.prev.value)]), [
    ['put', storageKey, plain.toString(), undefined],
    ['put', '/registry/configmaps/default/c', '{"plain":true}', undefined],
    ['put', storageKey, '{"v":2}', plain.toString()],
    ['put', storageKey, '!no matching prefix found', '{"v":2}'],
    ['delete', storageKey, '!no matching prefix found', 'no matching prefix found'],
  ]);
  await backend.close();
});

test('EncryptingBackend keeps its backend\'s answer to where consistent reads go (etcd: to storage, not the watch cache)', async () => {
  const plain = new MemoryBackend();
  const etcdLike = Object.assign(new MemoryBackend(), { consistentReadsFromStorage: true });
  assert.equal(new EncryptingBackend(plain, () => undefined).consistentReadsFromStorage, undefined);
  assert.equal(new EncryptingBackend(etcdLike, () => undefined).consistentReadsFromStorage, true);
  await Promise.all([plain.close(), etcdLike.close()]);
});

test('EncryptingBackend keeps its backend\'s page size for a filling cache', async () => {
  const plain = new MemoryBackend();
  const remote = Object.assign(new MemoryBackend(), { fillPageSize: 1_000 });
  assert.equal(new EncryptingBackend(plain, () => undefined).fillPageSize, undefined);
  assert.equal(new EncryptingBackend(remote, () => undefined).fillPageSize, 1_000);
  await Promise.all([plain.close(), remote.close()]);
});

test('a read through any provider or key but the first is stale (upstream\'s stale reads): an unchanged update writes it again', async () => {
  const chain = (...names: Array<'key1' | 'key2' | 'identity'>) => prefixTransformers(names.map((name) => name === 'identity'
    ? { prefix: providerPrefix('identity', ''), transformer: identityTransformer }
    : { prefix: providerPrefix('aescbc', name), transformer: aescbcTransformer(name === 'key1' ? key32 : key16) }));
  const byKey1 = chain('key1').toStorage(plain, storageKey);
  const staleness = (transformer: ValueTransformer, stored: Uint8Array) => {
    let stale = false;
    transformer.fromStorage(stored, storageKey, () => {
      stale = true;
    });
    return stale;
  };
  assert.equal(staleness(chain('key1', 'key2'), byKey1), false, 'the first key');
  assert.equal(staleness(chain('key2', 'key1'), byKey1), true, 'a rotated key');
  assert.equal(staleness(chain('identity', 'key1'), plain), false, 'identity first, plain data');
  assert.equal(staleness(chain('key1', 'identity'), plain), true, 'plain data once a key writes');
  assert.equal(staleness(chain('identity', 'key1'), byKey1), true, 'encrypted data once identity writes');
  // Through the backend: the flag on what get answers.
  const inner = new MemoryBackend();
  await inner.create(storageKey, byKey1);
  assert.equal((await new EncryptingBackend(inner, () => chain('key2', 'key1')).get(storageKey))!.stale, true);
  assert.equal((await new EncryptingBackend(inner, () => chain('key1')).get(storageKey))!.stale, undefined);
});
