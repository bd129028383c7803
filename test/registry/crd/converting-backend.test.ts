// The storage of a version that converts by webhook: writes in the storage version, reads
// and watch events in the served version, and a current revision that waits for the
// events its watches are still converting (a watch cache counts it as reached).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { MemoryBackend } from '../../../src/storage/memory.ts';
import type { StorageEvent } from '../../../src/storage/backend.ts';
import { ConversionError } from '../../../src/registry/crd/conversion-webhook.ts';
import { ConvertingBackend, convertingQueueLimit, type ObjectConverter } from '../../../src/registry/crd/converting-backend.ts';

const enc = (obj: unknown) => new TextEncoder().encode(JSON.stringify(obj));
const dec = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
const obj = (apiVersion: string, name: string, n: number) => ({ apiVersion, kind: 'Widget', metadata: { name }, spec: { n } });

/** Converts by setting apiVersion (and tagging spec.via), each call `delayMs` late; `fail` refuses. */
function fakeConverter(delayMs = 0) {
  const calls: Array<{ names: string[]; to: string }> = [];
  const converter: ObjectConverter & { calls: typeof calls; fail: boolean } = {
    calls,
    fail: false,
    async convert(objects: KubeObject[], to: string) {
      calls.push({ names: objects.map((o) => o.metadata.name!), to });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (converter.fail) throw new ConversionError('conversion webhook for g/v2, Kind=Widget failed: down');
      return objects.map((o) => (o.apiVersion === to ? o : { ...o, apiVersion: to, spec: { ...(o as any).spec, via: to } }));
    },
  };
  return converter;
}

test('writes in the storage version, reads in the served one, a list in one call', async () => {
  const inner = new MemoryBackend();
  const converter = fakeConverter();
  const v1 = new ConvertingBackend(inner, converter, 'g/v1', 'g/v2');
  await v1.create('/w/a', enc(obj('g/v1', 'a', 1)));
  assert.equal(dec((await inner.get('/w/a'))!.value).apiVersion, 'g/v2', 'stored as v2');
  await inner.create('/w/b', enc(obj('g/v2', 'b', 2)));
  await inner.create('/w/c', enc(obj('g/v1', 'c', 3)));
  converter.calls.length = 0;
  const listed = await v1.list('/w/');
  assert.deepEqual(listed.items.map((kv) => dec(kv.value).apiVersion), ['g/v1', 'g/v1', 'g/v1']);
  assert.deepEqual(converter.calls, [{ names: ['a', 'b'], to: 'g/v1' }], 'one call, only what is in another version');
  // A value that is not an object is left for the Store to report.
  await inner.create('/w/d', new TextEncoder().encode('not json'));
  assert.equal(new TextDecoder().decode((await v1.get('/w/d'))!.value), 'not json');
});

test('a converted write is read back once, from what was stored', async () => {
  const inner = new MemoryBackend();
  const v1 = new ConvertingBackend(inner, fakeConverter(), 'g/v1', 'g/v2');
  const rev = await v1.create('/w/a', enc(obj('g/v1', 'a', 1)));
  const back = await v1.readBack('/w/a', rev);
  // Through v2 and back: each conversion tags spec.via, the last one's wins.
  assert.deepEqual(dec(back!.value).spec, { n: 1, via: 'g/v1' });
  assert.equal(await v1.readBack('/w/a', rev), undefined, 'once');
  const stored = await v1.create('/w/b', enc(obj('g/v2', 'b', 2)));
  assert.equal(await v1.readBack('/w/b', stored), undefined, 'a write in the storage version needs no conversion back');
});

test('a page\'s objects go in reviews of at most a MiB of them, a larger one alone', async () => {
  const inner = new MemoryBackend();
  const converter = fakeConverter();
  const v1 = new ConvertingBackend(inner, converter, 'g/v1', 'g/v2');
  const big = (name: string, kib: number) => ({ ...obj('g/v2', name, 0), data: 'x'.repeat(kib * 1024) });
  for (const [name, kib] of [['a', 400], ['b', 400], ['c', 400], ['d', 1500], ['e', 10], ['f', 10]] as const) await inner.create(`/w/${name}`, enc(big(name, kib)));
  converter.calls.length = 0;
  const listed = await v1.list('/w/');
  assert.deepEqual(converter.calls.map((c) => c.names), [['a', 'b'], ['c'], ['d'], ['e', 'f']]);
  assert.deepEqual(listed.items.map((kv) => [kv.key, dec(kv.value).apiVersion]), ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => [`/w/${n}`, 'g/v1']));
});

test('a failed conversion: reads 500 with its message, writes an internal error', async () => {
  const inner = new MemoryBackend();
  const converter = fakeConverter();
  const v1 = new ConvertingBackend(inner, converter, 'g/v1', 'g/v2');
  await inner.create('/w/a', enc(obj('g/v2', 'a', 1)));
  converter.fail = true;
  await assert.rejects(v1.get('/w/a'), (err: any) => err.code === 500 && err.reason === '' && err.message === 'conversion webhook for g/v2, Kind=Widget failed: down');
  await assert.rejects(v1.create('/w/b', enc(obj('g/v1', 'b', 1))), (err: any) => err.code === 500 && err.reason === 'InternalError');
  assert.equal(await inner.get('/w/b'), undefined);
});

test('watch events convert in order, and the current revision waits for them', async () => {
  const inner = new MemoryBackend();
  const converter = fakeConverter(30);
  const v1 = new ConvertingBackend(inner, converter, 'g/v1', 'g/v2');
  const start = await inner.currentRevision();
  const watch = v1.watch('/w/', start);
  const seen: StorageEvent[] = [];
  const consumed = (async () => {
    for await (const event of watch) seen.push(event);
  })();
  await inner.create('/w/a', enc(obj('g/v2', 'a', 1)));
  await inner.create('/w/b', enc(obj('g/v1', 'b', 2)));
  const rev = await inner.update('/w/a', enc(obj('g/v2', 'a', 3)), (await inner.get('/w/a'))!.modRevision);
  await inner.delete('/w/b');
  // Once the current revision is answered, a turn of the loop later every event up to it is delivered.
  const current = await v1.currentRevision();
  assert.ok(current > rev);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen.map((e) => [e.type, e.kv.key, e.type === 'put' ? dec(e.kv.value).apiVersion : '', e.revision]).map((e) => e.slice(0, 3)), [
    ['put', '/w/a', 'g/v1'], ['put', '/w/b', 'g/v1'], ['put', '/w/a', 'g/v1'], ['delete', '/w/b', ''],
  ]);
  assert.deepEqual(seen.map((e) => e.revision), [...seen.map((e) => e.revision)].sort((a, b) => a - b));

  // An event that cannot convert ends the watch with the error.
  converter.fail = true;
  await inner.create('/w/c', enc(obj('g/v2', 'c', 1)));
  await assert.rejects(consumed, (err: any) => err.code === 500);
  watch.close();
});

test('a consumer that falls too far behind: the events it has, then Unavailable', async () => {
  const inner = new MemoryBackend();
  const v1 = new ConvertingBackend(inner, fakeConverter(), 'g/v1', 'g/v2');
  const watch = v1.watch('/w/', await inner.currentRevision());
  for (let i = 0; i <= convertingQueueLimit; i++) await inner.create(`/w/${i}`, enc(obj('g/v2', String(i), i)));
  let received = 0;
  await assert.rejects((async () => {
    for await (const event of watch) {
      assert.equal(dec(event.kv.value).apiVersion, 'g/v1');
      received++;
    }
  })(), (err: any) => err.code === 'Unavailable');
  assert.equal(received, convertingQueueLimit);
});
