// The storage contract (DESIGN.md "Storage contract"), as one suite every backend
// runs: memory.test.ts and sqlite.test.ts call storageContract with a factory.

import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { isStorageError, type Backend, type KeyValue, type StorageError, type StorageErrorCode, type StorageEvent, type Watch } from '../../src/storage/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { random } from '../helpers/random.ts';

export interface ContractOptions {
  watchQueueLimit?: number;
}

/** Opens a fresh, empty backend. */
export type OpenBackend = (opts?: ContractOptions) => Promise<Backend>;

export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);

async function fresh(t: TestContext, open: OpenBackend, opts?: ContractOptions): Promise<Backend> {
  const backend = await open(opts);
  t.after(() => backend.close());
  return backend;
}

/** Asserts that `promise` rejects with a StorageError of `code`, and returns it. */
async function rejectsWith(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  let caught: unknown;
  await assert.rejects(promise, (err) => ((caught = err), isStorageError(err, code)));
  return caught as StorageError;
}

/** The next event of a watch; fails instead of hanging when none comes. */
async function nextEvent(watch: Watch): Promise<StorageEvent> {
  const iterator = watch[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no watch event within 5s')), 5000);
  });
  try {
    const result = await Promise.race([iterator.next(), timeout]);
    assert.equal(result.done, false, 'watch ended instead of delivering an event');
    return result.value as StorageEvent;
  } finally {
    clearTimeout(timer);
  }
}

async function nextEvents(watch: Watch, count: number): Promise<StorageEvent[]> {
  const events: StorageEvent[] = [];
  while (events.length < count) events.push(await nextEvent(watch));
  return events;
}

/** An event reduced to what the tests compare: type, key, value, revisions, prev value. */
function summary(event: StorageEvent) {
  return {
    type: event.type,
    key: event.kv.key,
    value: text(event.kv.value),
    modRevision: event.kv.modRevision,
    revision: event.revision,
    prev: event.prev === undefined ? undefined : text(event.prev.value),
  };
}

function keysOf(items: KeyValue[]): string[] {
  return items.map((kv) => kv.key);
}

export function storageContract(name: string, open: OpenBackend): void {
  describe(`${name} backend: storage contract`, () => {
    describe('writes', () => {
      test('create stores the value; get returns it with createRevision = modRevision = the revision', async (t) => {
        const backend = await fresh(t, open);
        const revision = await backend.create('/registry/pods/default/a', bytes('one'));
        const kv = await backend.get('/registry/pods/default/a');
        assert.deepEqual(kv && { ...kv, value: text(kv.value) }, { key: '/registry/pods/default/a', value: 'one', createRevision: revision, modRevision: revision });
      });

      test('get of a missing key is undefined', async (t) => {
        const backend = await fresh(t, open);
        assert.equal(await backend.get('/registry/pods/default/none'), undefined);
      });

      test('create on an existing key fails with KeyExists and changes nothing', async (t) => {
        const backend = await fresh(t, open);
        const revision = await backend.create('/registry/pods/default/a', bytes('one'));
        await rejectsWith(backend.create('/registry/pods/default/a', bytes('two')), 'KeyExists');
        assert.equal(text((await backend.get('/registry/pods/default/a'))!.value), 'one');
        assert.equal(await backend.currentRevision(), revision);
      });

      test('values are opaque bytes: empty and every byte value round-trip', async (t) => {
        const backend = await fresh(t, open);
        const all = Uint8Array.from({ length: 256 }, (_, i) => i);
        await backend.create('/registry/x/empty', new Uint8Array(0));
        await backend.create('/registry/x/all', all);
        assert.deepEqual((await backend.get('/registry/x/empty'))!.value, new Uint8Array(0));
        assert.deepEqual((await backend.get('/registry/x/all'))!.value, all);
      });

      test('changing the caller\'s buffer after a write does not change the stored value', async (t) => {
        const backend = await fresh(t, open);
        const value = bytes('one');
        await backend.create('/registry/x/a', value);
        value.fill(0);
        assert.equal(text((await backend.get('/registry/x/a'))!.value), 'one');
      });

      const updateCases: Array<{ name: string; key: string; expect: 'current' | 'stale'; error?: StorageErrorCode }> = [
        { name: 'update with the current revision succeeds', key: '/registry/x/a', expect: 'current' },
        { name: 'update with a stale revision fails with RevisionMismatch', key: '/registry/x/a', expect: 'stale', error: 'RevisionMismatch' },
        { name: 'update of a missing key fails with KeyNotFound', key: '/registry/x/missing', expect: 'current', error: 'KeyNotFound' },
      ];
      for (const c of updateCases) {
        test(c.name, async (t) => {
          const backend = await fresh(t, open);
          const created = await backend.create('/registry/x/a', bytes('v1'));
          const updated = await backend.update('/registry/x/a', bytes('v2'), created);
          const expectRevision = c.expect === 'current' ? updated : created;
          if (c.error === undefined) {
            const revision = await backend.update(c.key, bytes('v3'), expectRevision);
            assert.ok(revision > updated);
            const kv = (await backend.get(c.key))!;
            assert.deepEqual([text(kv.value), kv.createRevision, kv.modRevision], ['v3', created, revision]);
          } else {
            const err = await rejectsWith(backend.update(c.key, bytes('v3'), expectRevision), c.error);
            if (c.error === 'RevisionMismatch') assert.equal(err.revision, updated, 'the error carries the current modRevision');
            assert.equal(text((await backend.get('/registry/x/a'))!.value), 'v2');
            assert.equal(await backend.currentRevision(), updated);
          }
        });
      }

      const deleteCases: Array<{ name: string; key: string; expect: 'none' | 'current' | 'stale'; error?: StorageErrorCode }> = [
        { name: 'delete without an expected revision removes the key', key: '/registry/x/a', expect: 'none' },
        { name: 'delete with the current revision removes the key', key: '/registry/x/a', expect: 'current' },
        { name: 'delete with a stale revision fails with RevisionMismatch and keeps the key', key: '/registry/x/a', expect: 'stale', error: 'RevisionMismatch' },
        { name: 'delete of a missing key fails with KeyNotFound', key: '/registry/x/missing', expect: 'none', error: 'KeyNotFound' },
        { name: 'delete of a missing key with an expected revision fails with KeyNotFound', key: '/registry/x/missing', expect: 'current', error: 'KeyNotFound' },
      ];
      for (const c of deleteCases) {
        test(c.name, async (t) => {
          const backend = await fresh(t, open);
          const created = await backend.create('/registry/x/a', bytes('v1'));
          const updated = await backend.update('/registry/x/a', bytes('v2'), created);
          const expectRevision = c.expect === 'none' ? undefined : c.expect === 'current' ? updated : created;
          if (c.error === undefined) {
            const revision = await backend.delete(c.key, expectRevision);
            assert.equal(revision, updated + 1);
            assert.equal(await backend.get(c.key), undefined);
          } else {
            await rejectsWith(backend.delete(c.key, expectRevision), c.error);
            assert.equal(text((await backend.get('/registry/x/a'))!.value), 'v2');
            assert.equal(await backend.currentRevision(), updated);
          }
        });
      }

      test('a key created again after a delete gets a new createRevision', async (t) => {
        const backend = await fresh(t, open);
        await backend.create('/registry/x/a', bytes('v1'));
        await backend.delete('/registry/x/a');
        const again = await backend.create('/registry/x/a', bytes('v2'));
        const kv = (await backend.get('/registry/x/a'))!;
        assert.deepEqual([kv.createRevision, kv.modRevision], [again, again]);
      });
    });

    describe('revisions', () => {
      test('a new store is at a positive revision and each write bumps it by exactly one', async (t) => {
        const backend = await fresh(t, open);
        const initial = await backend.currentRevision();
        assert.ok(initial >= 1, 'no store answers revision 0, which clients use to mean "any"');
        const r1 = await backend.create('/registry/x/a', bytes('1'));
        const r2 = await backend.update('/registry/x/a', bytes('2'), r1);
        const r3 = await backend.create('/registry/x/b', bytes('1'));
        const r4 = await backend.delete('/registry/x/a');
        assert.deepEqual([r1, r2, r3, r4], [initial + 1, initial + 2, initial + 3, initial + 4]);
        assert.equal(await backend.currentRevision(), r4);
      });

      test('failed writes do not bump the revision', async (t) => {
        const backend = await fresh(t, open);
        const r1 = await backend.create('/registry/x/a', bytes('1'));
        await rejectsWith(backend.create('/registry/x/a', bytes('1')), 'KeyExists');
        await rejectsWith(backend.update('/registry/x/a', bytes('2'), r1 + 5), 'RevisionMismatch');
        await rejectsWith(backend.delete('/registry/x/b'), 'KeyNotFound');
        assert.equal(await backend.currentRevision(), r1);
        assert.equal(await backend.create('/registry/x/b', bytes('1')), r1 + 1);
      });

      test('concurrent writes each get their own distinct revision and outcome', async (t) => {
        const backend = await fresh(t, open);
        const before = await backend.currentRevision();
        // 200 creates issued together, every fourth one on a key another one also creates.
        const keys = Array.from({ length: 200 }, (_, i) => `/registry/x/${i % 4 === 3 ? i - 1 : i}`);
        const outcomes = await Promise.allSettled(keys.map((key) => backend.create(key, bytes(key))));
        const revisions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
        assert.equal(failures.length, 50);
        assert.ok(failures.every((err) => isStorageError(err, 'KeyExists')));
        assert.equal(new Set(revisions).size, 150, 'distinct revisions');
        assert.deepEqual([...revisions].sort((a, b) => a - b), Array.from({ length: 150 }, (_, i) => before + 1 + i));
        assert.equal(await backend.currentRevision(), before + 150);
        const listed = await backend.list('/registry/x/');
        assert.equal(listed.items.length, 150);
      });

      test('writes issued together to one key apply in call order', async (t) => {
        const backend = await fresh(t, open);
        const created = backend.create('/registry/x/a', bytes('1'));
        const updated = created.then((r) => backend.update('/registry/x/a', bytes('2'), r));
        const deleted = backend.delete('/registry/x/a', (await created) + 1);
        const [c, u, d] = await Promise.all([created, updated, deleted]);
        assert.deepEqual([u, d], [c + 1, c + 2]);
        assert.equal(await backend.get('/registry/x/a'), undefined);
      });
    });

    describe('list', () => {
      const keys = [
        '/registry/pods/default/a',
        '/registry/pods/default/b',
        '/registry/pods/default/c',
        '/registry/pods/kube-system/d',
        '/registry/pods/kube-system/e',
        '/registry/podtemplates/default/f',
        '/registry/services/default/g',
      ];
      const cases: Array<{ name: string; prefix: string; limit?: number; startAfter?: string; expect: string[]; more: boolean; remaining: number }> = [
        { name: 'a prefix lists its keys in order', prefix: '/registry/pods/', expect: keys.slice(0, 5), more: false, remaining: 0 },
        { name: 'a narrower prefix', prefix: '/registry/pods/kube-system/', expect: keys.slice(3, 5), more: false, remaining: 0 },
        { name: 'a prefix is a byte prefix, not a path segment', prefix: '/registry/pod', expect: keys.slice(0, 6), more: false, remaining: 0 },
        { name: 'the empty prefix lists everything', prefix: '', expect: keys, more: false, remaining: 0 },
        { name: 'a prefix with no keys', prefix: '/registry/secrets/', expect: [], more: false, remaining: 0 },
        { name: 'limit returns the first keys and counts the rest', prefix: '/registry/pods/', limit: 2, expect: keys.slice(0, 2), more: true, remaining: 3 },
        { name: 'limit equal to the number of keys has no more', prefix: '/registry/pods/', limit: 5, expect: keys.slice(0, 5), more: false, remaining: 0 },
        { name: 'limit 0 means no limit', prefix: '/registry/pods/', limit: 0, expect: keys.slice(0, 5), more: false, remaining: 0 },
        { name: 'startAfter continues after that key', prefix: '/registry/pods/', startAfter: '/registry/pods/default/b', limit: 2, expect: keys.slice(2, 4), more: true, remaining: 1 },
        { name: 'startAfter need not be an existing key', prefix: '/registry/pods/', startAfter: '/registry/pods/default/bb', expect: keys.slice(2, 5), more: false, remaining: 0 },
        { name: 'startAfter the last key lists nothing', prefix: '/registry/pods/', startAfter: '/registry/pods/kube-system/e', expect: [], more: false, remaining: 0 },
        { name: 'startAfter before the prefix is ignored', prefix: '/registry/pods/kube-system/', startAfter: '/registry/a', expect: keys.slice(3, 5), more: false, remaining: 0 },
      ];
      for (const c of cases) {
        test(c.name, async (t) => {
          const backend = await fresh(t, open);
          for (const key of [...keys].reverse()) await backend.create(key, bytes(key));
          const result = await backend.list(c.prefix, { limit: c.limit, startAfter: c.startAfter });
          assert.deepEqual({ keys: keysOf(result.items), more: result.more, remaining: result.remaining }, { keys: c.expect, more: c.more, remaining: c.remaining });
          assert.equal(result.revision, await backend.currentRevision());
          for (const kv of result.items) assert.equal(text(kv.value), kv.key);
        });
      }

      test('countRemaining: false pages through the same keys, and more is exact', async (t) => {
        const backend = await fresh(t, open);
        for (const key of keys) await backend.create(key, bytes(key));
        const first = await backend.list('/registry/pods/', { limit: 3, countRemaining: false });
        assert.deepEqual({ keys: keysOf(first.items), more: first.more }, { keys: keys.slice(0, 3), more: true });
        const last = await backend.list('/registry/pods/', { limit: 3, startAfter: keys[2], countRemaining: false });
        assert.deepEqual({ keys: keysOf(last.items), more: last.more, remaining: last.remaining }, { keys: keys.slice(3, 5), more: false, remaining: 0 });
      });

      test('list leaves out deleted keys and shows each key\'s latest value and revisions', async (t) => {
        const backend = await fresh(t, open);
        const a = await backend.create('/registry/x/a', bytes('a1'));
        await backend.create('/registry/x/b', bytes('b1'));
        const a2 = await backend.update('/registry/x/a', bytes('a2'), a);
        await backend.delete('/registry/x/b');
        const { items } = await backend.list('/registry/x/');
        assert.deepEqual(items.map((kv) => [kv.key, text(kv.value), kv.createRevision, kv.modRevision]), [['/registry/x/a', 'a2', a, a2]]);
      });

      test('paging with limit and startAfter visits every key once', async (t) => {
        const backend = await fresh(t, open);
        const all = Array.from({ length: 23 }, (_, i) => `/registry/x/${String(i).padStart(3, '0')}`);
        for (const key of all) await backend.create(key, bytes(key));
        const seen: string[] = [];
        let startAfter: string | undefined;
        for (;;) {
          const page = await backend.list('/registry/x/', { limit: 5, startAfter });
          seen.push(...keysOf(page.items));
          assert.equal(page.remaining, all.length - seen.length);
          if (!page.more) break;
          startAfter = page.items[page.items.length - 1]!.key;
        }
        assert.deepEqual(seen, all);
      });
    });

    describe('reads at an older revision', () => {
      /** a created, b created, a updated, c created, b deleted, a deleted, b created again. */
      async function history(backend: Backend) {
        const r = {
          aCreated: await backend.create('/registry/x/a', bytes('a1')),
          bCreated: await backend.create('/registry/x/b', bytes('b1')),
          aUpdated: 0, cCreated: 0, bDeleted: 0, aDeleted: 0, bAgain: 0,
        };
        r.aUpdated = await backend.update('/registry/x/a', bytes('a2'), r.aCreated);
        r.cCreated = await backend.create('/registry/x/c', bytes('c1'));
        r.bDeleted = await backend.delete('/registry/x/b');
        r.aDeleted = await backend.delete('/registry/x/a');
        r.bAgain = await backend.create('/registry/x/b', bytes('b2'));
        return r;
      }

      test('get at a revision returns the value the key had then', async (t) => {
        const backend = await fresh(t, open);
        const r = await history(backend);
        const cases: Array<[string, number, string | undefined, number?]> = [
          ['/registry/x/a', r.aCreated - 1, undefined],
          ['/registry/x/a', r.aCreated, 'a1', r.aCreated],
          ['/registry/x/a', r.aUpdated - 1, 'a1', r.aCreated],
          ['/registry/x/a', r.aUpdated, 'a2', r.aUpdated],
          ['/registry/x/a', r.aDeleted - 1, 'a2', r.aUpdated],
          ['/registry/x/a', r.aDeleted, undefined],
          ['/registry/x/b', r.bDeleted - 1, 'b1', r.bCreated],
          ['/registry/x/b', r.bDeleted, undefined],
          ['/registry/x/b', r.bAgain, 'b2', r.bAgain],
        ];
        for (const [key, revision, value, modRevision] of cases) {
          const kv = await backend.get(key, { revision });
          assert.deepEqual(kv && [text(kv.value), kv.modRevision], value === undefined ? undefined : [value, modRevision], `${key} at ${revision}`);
        }
      });

      test('list at a revision returns the keys and values as they were then', async (t) => {
        const backend = await fresh(t, open);
        const r = await history(backend);
        const cases: Array<[number, string[]]> = [
          [r.aCreated, ['a=a1']],
          [r.aUpdated, ['a=a2', 'b=b1']],
          [r.cCreated, ['a=a2', 'b=b1', 'c=c1']],
          [r.bDeleted, ['a=a2', 'c=c1']],
          [r.aDeleted, ['c=c1']],
          [r.bAgain, ['b=b2', 'c=c1']],
        ];
        for (const [revision, expect] of cases) {
          const result = await backend.list('/registry/x/', { revision });
          assert.equal(result.revision, revision);
          assert.deepEqual(result.items.map((kv) => `${kv.key.slice('/registry/x/'.length)}=${text(kv.value)}`), expect, `at ${revision}`);
        }
      });

      test('list at a revision pages with limit, startAfter and remaining', async (t) => {
        const backend = await fresh(t, open);
        const all = Array.from({ length: 12 }, (_, i) => `/registry/x/${String(i).padStart(2, '0')}`);
        for (const key of all) await backend.create(key, bytes('old'));
        const revision = await backend.currentRevision();
        // Later changes must not show: delete half, add others, update the rest.
        for (const [i, key] of all.entries()) {
          if (i % 2 === 0) await backend.delete(key);
          else await backend.update(key, bytes('new'), (await backend.get(key))!.modRevision);
        }
        await backend.create('/registry/x/05a', bytes('new'));
        const first = await backend.list('/registry/x/', { revision, limit: 5 });
        assert.deepEqual([keysOf(first.items), first.more, first.remaining], [all.slice(0, 5), true, 7]);
        const second = await backend.list('/registry/x/', { revision, limit: 5, startAfter: all[4] });
        assert.deepEqual([keysOf(second.items), second.more, second.remaining], [all.slice(5, 10), true, 2]);
        assert.ok([...first.items, ...second.items].every((kv) => text(kv.value) === 'old'));
      });

      test('list at a revision reads the range as it was, whether writes since touched it, another prefix or only keys outside the page', async (t) => {
        const backend = await fresh(t, open);
        for (const name of ['a', 'b', 'c', 'd', 'e']) await backend.create(`/registry/x/${name}`, bytes(`${name}1`));
        const revision = await backend.currentRevision();
        const at = async (opts: { startAfter?: string; limit?: number } = {}) => (await backend.list('/registry/x/', { revision, ...opts })).items.map((kv) => `${kv.key.slice('/registry/x/'.length)}=${text(kv.value)}@${kv.modRevision}`);
        const before = await at();
        assert.deepEqual(before.map((item) => item.split('@')[0]), ['a=a1', 'b=b1', 'c=c1', 'd=d1', 'e=e1']);
        // Writes under another prefix, and to a key that sorts right after the range.
        await backend.create('/registry/y/a', bytes('y'));
        await backend.create('/registry/x0', bytes('next'));
        assert.deepEqual(await at(), before);
        // Writes inside the range: the versions at the revision, not the current ones.
        await backend.update('/registry/x/c', bytes('c2'), (await backend.get('/registry/x/c'))!.modRevision);
        await backend.delete('/registry/x/b');
        await backend.create('/registry/x/bb', bytes('bb1'));
        assert.deepEqual(await at(), before);
        assert.deepEqual(await at({ startAfter: '/registry/x/c' }), before.slice(3), 'a page past every key written since');
        assert.deepEqual(await at({ startAfter: '/registry/x/a', limit: 2 }), before.slice(1, 3));
        const page = await backend.list('/registry/x/', { revision, startAfter: '/registry/x/c', limit: 1 });
        assert.deepEqual([keysOf(page.items), page.more, page.remaining], [['/registry/x/d'], true, 1]);
        const earlier = await backend.list('/registry/x/', { revision, limit: 1 });
        assert.deepEqual([keysOf(earlier.items), earlier.more, earlier.remaining], [['/registry/x/a'], true, 4], 'the keys after it counted as they were');
      });

      test('reads at a future revision fail with FutureRevision', async (t) => {
        const backend = await fresh(t, open);
        const revision = await backend.create('/registry/x/a', bytes('1'));
        await rejectsWith(backend.get('/registry/x/a', { revision: revision + 1 }), 'FutureRevision');
        await rejectsWith(backend.list('/registry/x/', { revision: revision + 1 }), 'FutureRevision');
      });
    });

    describe('watch', () => {
      test('events after the start revision: create, update and delete with prev values', async (t) => {
        const backend = await fresh(t, open);
        const before = await backend.create('/registry/x/before', bytes('ignored'));
        const r1 = await backend.create('/registry/x/a', bytes('a1'));
        const r2 = await backend.update('/registry/x/a', bytes('a2'), r1);
        const r3 = await backend.delete('/registry/x/a');
        const watch = backend.watch('/registry/x/', before);
        t.after(() => watch.close());
        const events = await nextEvents(watch, 3);
        assert.deepEqual(events.map(summary), [
          { type: 'put', key: '/registry/x/a', value: 'a1', modRevision: r1, revision: r1, prev: undefined },
          { type: 'put', key: '/registry/x/a', value: 'a2', modRevision: r2, revision: r2, prev: 'a1' },
          { type: 'delete', key: '/registry/x/a', value: 'a2', modRevision: r3, revision: r3, prev: 'a2' },
        ]);
        assert.equal(events[1]!.kv.createRevision, r1);
        assert.equal(events[1]!.prev!.modRevision, r1);
      });

      test('live events arrive with prev values, and before the write is answered', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        const watch = backend.watch('/registry/x/', start);
        t.after(() => watch.close());
        // The watcher hears of a commit before its writer does (so a writer that reacts
        // to its answer by reading the watch finds its own event there).
        const order: string[] = [];
        const first = watch[Symbol.asyncIterator]().next();
        void first.then(() => order.push('event'));
        const r1 = await backend.create('/registry/x/a', bytes('a1')).finally(() => order.push('write answered'));
        assert.deepEqual(summary((await first).value as StorageEvent), { type: 'put', key: '/registry/x/a', value: 'a1', modRevision: r1, revision: r1, prev: undefined });
        assert.deepEqual(order, ['event', 'write answered']);
        const r2 = await backend.update('/registry/x/a', bytes('a2'), r1);
        const r3 = await backend.delete('/registry/x/a', r2);
        assert.deepEqual((await nextEvents(watch, 2)).map(summary), [
          { type: 'put', key: '/registry/x/a', value: 'a2', modRevision: r2, revision: r2, prev: 'a1' },
          { type: 'delete', key: '/registry/x/a', value: 'a2', modRevision: r3, revision: r3, prev: 'a2' },
        ]);
      });

      test('replay then live: every revision once, in order, with writes racing the catch-up', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        const key = (i: number) => `/registry/x/${i % 7}`;
        const write = async (i: number) => {
          const current = await backend.get(key(i));
          return current === undefined ? backend.create(key(i), bytes(`v${i}`)) : backend.update(key(i), bytes(`v${i}`), current.modRevision);
        };
        for (let i = 0; i < 2500; i++) await write(i); // more than one catch-up page
        const watch = backend.watch('/registry/x/', start);
        t.after(() => watch.close());
        // Consume, and after every third event write one more, until 3000 have arrived.
        const received: StorageEvent[] = [];
        let i = 2500;
        while (received.length < 3000) {
          received.push(await nextEvent(watch));
          if (i < 3000 && received.length % 3 === 0) await write(i++);
        }
        assert.deepEqual(received.map((e) => e.revision), Array.from({ length: 3000 }, (_, n) => start + 1 + n));
        assert.deepEqual(received.map((e) => text(e.kv.value)), Array.from({ length: 3000 }, (_, n) => `v${n}`));
        for (const [n, e] of received.entries()) assert.equal(e.prev === undefined ? undefined : text(e.prev.value), n < 7 ? undefined : `v${n - 7}`);
      });

      test('a watch on a prefix ignores keys outside it', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        await backend.create('/registry/pods/default/a', bytes('pod'));
        await backend.create('/registry/podtemplates/default/a', bytes('template'));
        await backend.create('/registry/services/default/a', bytes('service'));
        const watch = backend.watch('/registry/pods/', start);
        t.after(() => watch.close());
        assert.equal((await nextEvent(watch)).kv.key, '/registry/pods/default/a');
        await backend.create('/registry/services/default/b', bytes('service'));
        await backend.create('/registry/pods/default/b', bytes('pod'));
        assert.equal((await nextEvent(watch)).kv.key, '/registry/pods/default/b');
      });

      test('live watches on nested, overlapping and partial prefixes each get exactly their keys\' events, in order', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        const prefixes = ['/registry/pods/', '/registry/pods/', '/registry/pods/ns1/', '/registry/po', '/registry/pods/ns1/a', '/registry/services/'];
        const watches = prefixes.map((prefix) => backend.watch(prefix, start));
        t.after(() => watches.forEach((w) => w.close()));
        const received = watches.map(() => [] as string[]);
        const consumed = watches.map(async (watch, i) => {
          for await (const event of watch) received[i]!.push(event.kv.key);
        });
        await nextTurn();
        // Writes in one turn share a commit where the backend groups them.
        const keys = ['/registry/pods/ns1/a', '/registry/pods/ns2/b', '/registry/podtemplates/ns1/c', '/registry/services/ns1/d', '/registry/pods/ns1/ab'];
        await Promise.all(keys.map((key) => backend.create(key, bytes(key))));
        await backend.create('/registry/pods/ns1/e', bytes('e'));
        const written = [...keys, '/registry/pods/ns1/e'];
        const expected = prefixes.map((prefix) => written.filter((key) => key.startsWith(prefix)));
        await eventually(async () => assert.deepEqual(received.map((r) => r.length), expected.map((e) => e.length)));
        watches.forEach((w) => w.close());
        await Promise.all(consumed);
        // Each in revision order: the order the writes were made in (the grouped ones in any order among themselves, once each).
        for (const [i, prefix] of prefixes.entries()) {
          assert.deepEqual([...received[i]!].sort(), [...expected[i]!].sort(), prefix);
          assert.equal(received[i]!.at(-1) === '/registry/pods/ns1/e', expected[i]!.includes('/registry/pods/ns1/e'), prefix);
        }
      });

      test('a watch from a future revision starts after it', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        const watch = backend.watch('/registry/x/', start + 2);
        t.after(() => watch.close());
        await backend.create('/registry/x/a', bytes('1'));
        await backend.create('/registry/x/b', bytes('2'));
        const third = await backend.create('/registry/x/c', bytes('3'));
        assert.equal((await nextEvent(watch)).revision, third);
      });

      test('closing a watch ends iteration, including a pending next()', async (t) => {
        const backend = await fresh(t, open);
        const watch = backend.watch('/registry/x/', await backend.currentRevision());
        const pending = watch[Symbol.asyncIterator]().next();
        setImmediate(() => watch.close());
        assert.deepEqual(await pending, { done: true, value: undefined });
        const seen: StorageEvent[] = [];
        for await (const event of watch) seen.push(event);
        assert.deepEqual(seen, []);
        await backend.create('/registry/x/a', bytes('1'));
        assert.deepEqual(await watch[Symbol.asyncIterator]().next(), { done: true, value: undefined });
      });

      test('breaking out of for-await closes the watch', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        await backend.create('/registry/x/a', bytes('1'));
        await backend.create('/registry/x/b', bytes('2'));
        const watch = backend.watch('/registry/x/', start);
        for await (const event of watch) {
          assert.equal(event.kv.key, '/registry/x/a');
          break;
        }
        assert.deepEqual(await watch[Symbol.asyncIterator]().next(), { done: true, value: undefined });
      });

      test('closing the backend ends every watch', async (t) => {
        const backend = await open();
        const start = await backend.currentRevision();
        const watches = [backend.watch('/registry/x/', start), backend.watch('/registry/y/', start)];
        const ended = watches.map(async (watch) => {
          const seen: StorageEvent[] = [];
          for await (const event of watch) seen.push(event);
          return seen.length;
        });
        await backend.create('/registry/x/a', bytes('1'));
        await nextTurn();
        await backend.close();
        assert.deepEqual(await Promise.all(ended), [1, 0]);
        t.diagnostic('both watches ended after close');
      });

      test('a consumer that falls too far behind sees the watch end with Unavailable', async (t) => {
        const backend = await fresh(t, open, { watchQueueLimit: 10 });
        const watch = backend.watch('/registry/x/', await backend.currentRevision());
        t.after(() => watch.close());
        const first = nextEvent(watch); // the watch is live once it has caught up
        await backend.create('/registry/x/0', bytes('0'));
        assert.equal((await first).kv.key, '/registry/x/0');
        for (let i = 1; i <= 11; i++) await backend.create(`/registry/x/${i}`, bytes(String(i)));
        const iterator = watch[Symbol.asyncIterator]();
        await assert.rejects(iterator.next(), (err) => isStorageError(err, 'Unavailable') && /behind/.test((err as Error).message));
        assert.deepEqual(await iterator.next(), { done: true, value: undefined });
      });

      test('a consumer within the queue limit gets every event', async (t) => {
        const backend = await fresh(t, open, { watchQueueLimit: 10 });
        const watch = backend.watch('/registry/x/', await backend.currentRevision());
        t.after(() => watch.close());
        const first = nextEvent(watch);
        await backend.create('/registry/x/0', bytes('0'));
        await first;
        for (let i = 1; i <= 10; i++) await backend.create(`/registry/x/${i}`, bytes(String(i)));
        assert.deepEqual((await nextEvents(watch, 10)).map((e) => text(e.kv.value)), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
      });

      test('a watch catching up on more history than the queue limit gets every event', async (t) => {
        const backend = await fresh(t, open, { watchQueueLimit: 10 });
        const start = await backend.currentRevision();
        for (let i = 1; i <= 25; i++) await backend.create(`/registry/x/${i}`, bytes(String(i)));
        const watch = backend.watch('/registry/x/', start);
        t.after(() => watch.close());
        const expected = Array.from({ length: 25 }, (_, i) => String(i + 1));
        assert.deepEqual((await nextEvents(watch, 25)).map((e) => text(e.kv.value)), expected);
      });
    });

    describe('time to live', () => {
      test('a key written with a time to live is deleted once it passes: a delete event with its last value; other keys stay', async (t) => {
        const backend = await fresh(t, open);
        await backend.create('/registry/events/default/kept', bytes('kept'));
        const created = await backend.create('/registry/events/default/a', bytes('a1'), { ttlSeconds: 1 });
        const watch = backend.watch('/registry/events/', created);
        t.after(() => watch.close());
        const event = await nextEvent(watch);
        assert.deepEqual({ ...summary(event), revision: undefined, modRevision: undefined }, { type: 'delete', key: '/registry/events/default/a', value: 'a1', prev: 'a1', revision: undefined, modRevision: undefined });
        assert.equal(event.kv.modRevision, event.revision);
        assert.ok(event.revision > created);
        assert.equal(await backend.get('/registry/events/default/a'), undefined);
        assert.equal(text((await backend.get('/registry/events/default/kept'))!.value), 'kept');
        // The key can be created again, for good.
        await backend.create('/registry/events/default/a', bytes('a2'));
        assert.equal(text((await backend.get('/registry/events/default/a'))!.value), 'a2');
      });

      test('a write without a time to live keeps the key for good; one with it starts it again; a delete ends it', async (t) => {
        const backend = await fresh(t, open);
        const kept = await backend.create('/registry/events/default/kept', bytes('k1'), { ttlSeconds: 1 });
        await backend.update('/registry/events/default/kept', bytes('k2'), kept);
        const renewed = await backend.create('/registry/events/default/renewed', bytes('r1'), { ttlSeconds: 1 });
        await backend.update('/registry/events/default/renewed', bytes('r2'), renewed, { ttlSeconds: 4 });
        await backend.create('/registry/events/default/gone', bytes('g1'), { ttlSeconds: 1 });
        await backend.delete('/registry/events/default/gone');
        const again = await backend.create('/registry/events/default/gone', bytes('g2'));
        const marker = await backend.create('/registry/events/default/marker', bytes('m'), { ttlSeconds: 1 });
        const watch = backend.watch('/registry/events/', marker);
        t.after(() => watch.close());
        const first = await nextEvent(watch);
        assert.deepEqual([first.type, first.kv.key], ['delete', '/registry/events/default/marker']);
        const live = async () => keysOf((await backend.list('/registry/events/')).items);
        assert.deepEqual(await live(), ['/registry/events/default/gone', '/registry/events/default/kept', '/registry/events/default/renewed']);
        const second = await nextEvent(watch);
        assert.deepEqual([second.type, second.kv.key, text(second.kv.value)], ['delete', '/registry/events/default/renewed', 'r2']);
        assert.deepEqual(await live(), ['/registry/events/default/gone', '/registry/events/default/kept']);
        assert.equal((await backend.get('/registry/events/default/gone'))!.modRevision, again);
      });
    });

    describe('close', () => {
      test('after close, reads and writes fail with Unavailable', async () => {
        const backend = await open();
        await backend.create('/registry/x/a', bytes('1'));
        await backend.close();
        await rejectsWith(backend.get('/registry/x/a'), 'Unavailable');
        await rejectsWith(backend.list('/registry/x/'), 'Unavailable');
        await rejectsWith(backend.create('/registry/x/b', bytes('1')), 'Unavailable');
        await rejectsWith(backend.currentRevision(), 'Unavailable');
        await backend.close();
      });

      test('writes submitted before close are completed', async () => {
        const backend = await open();
        const writes = Array.from({ length: 10 }, (_, i) => backend.create(`/registry/x/${i}`, bytes('1')));
        await backend.close();
        assert.equal((await Promise.all(writes)).length, 10);
      });
    });

    describe('compaction', () => {
      test('reads and watches below the compacted revision fail with Compacted; at it they work', async (t) => {
        const backend = await fresh(t, open);
        const a1 = await backend.create('/registry/x/a', bytes('a1'));
        const b1 = await backend.create('/registry/x/b', bytes('b1'));
        const a2 = await backend.update('/registry/x/a', bytes('a2'), a1);
        const c1 = await backend.create('/registry/x/c', bytes('c1'));
        await backend.delete('/registry/x/c');
        const compactAt = await backend.currentRevision();
        const a3 = await backend.update('/registry/x/a', bytes('a3'), a2);
        await backend.compact(compactAt);

        const err = await rejectsWith(backend.get('/registry/x/a', { revision: a1 }), 'Compacted');
        assert.equal(err.revision, compactAt, 'the error carries the compacted revision');
        await rejectsWith(backend.list('/registry/x/', { revision: compactAt - 1 }), 'Compacted');
        await assert.rejects(nextEvent(backend.watch('/registry/x/', c1)), (e) => isStorageError(e, 'Compacted'));

        // At the compacted revision everything is still readable, including versions written long before it.
        assert.equal(text((await backend.get('/registry/x/a', { revision: compactAt }))!.value), 'a2');
        assert.equal(text((await backend.get('/registry/x/b', { revision: compactAt }))!.value), 'b1');
        assert.equal(await backend.get('/registry/x/c', { revision: compactAt }), undefined);
        const listed = await backend.list('/registry/x/', { revision: compactAt });
        assert.deepEqual(listed.items.map((kv) => [kv.key, text(kv.value), kv.modRevision]), [['/registry/x/a', 'a2', a2], ['/registry/x/b', 'b1', b1]]);
        // A watch from it replays what followed, with the prev value from before it.
        const watch = backend.watch('/registry/x/', compactAt);
        t.after(() => watch.close());
        assert.deepEqual(summary(await nextEvent(watch)), { type: 'put', key: '/registry/x/a', value: 'a3', modRevision: a3, revision: a3, prev: 'a2' });
        // Current reads are untouched.
        assert.equal(text((await backend.get('/registry/x/a'))!.value), 'a3');
      });

      test('a key deleted before the compacted revision and created again after it has no prev', async (t) => {
        const backend = await fresh(t, open);
        await backend.create('/registry/x/a', bytes('a1'));
        await backend.delete('/registry/x/a');
        const compactAt = await backend.create('/registry/x/other', bytes('o'));
        const again = await backend.create('/registry/x/a', bytes('a2'));
        await backend.compact(compactAt);
        const watch = backend.watch('/registry/x/a', compactAt);
        t.after(() => watch.close());
        assert.deepEqual(summary(await nextEvent(watch)), { type: 'put', key: '/registry/x/a', value: 'a2', modRevision: again, revision: again, prev: undefined });
        assert.equal(await backend.get('/registry/x/a', { revision: compactAt }), undefined);
      });

      test('compacting repeatedly keeps each key\'s latest version', async (t) => {
        const backend = await fresh(t, open);
        let revision = await backend.create('/registry/x/a', bytes('0'));
        await backend.create('/registry/x/steady', bytes('s'));
        for (let i = 1; i <= 5; i++) {
          revision = await backend.update('/registry/x/a', bytes(String(i)), revision);
          await backend.compact(revision);
          const listed = await backend.list('/registry/x/', { revision });
          assert.deepEqual(listed.items.map((kv) => text(kv.value)), [String(i), 's']);
        }
        await backend.delete('/registry/x/a');
        await backend.compact(await backend.currentRevision());
        assert.deepEqual(keysOf((await backend.list('/registry/x/')).items), ['/registry/x/steady']);
      });

      test('a watch still catching up fails with Compacted when compaction overtakes it', async (t) => {
        const backend = await fresh(t, open);
        const start = await backend.currentRevision();
        for (let i = 0; i < 1500; i++) await backend.create(`/registry/x/${i}`, bytes('v'));
        const watch = backend.watch('/registry/x/', start);
        t.after(() => watch.close());
        await nextEvents(watch, 1000); // the first page of history
        await backend.compact(await backend.currentRevision());
        await assert.rejects(nextEvents(watch, 1000), (e) => isStorageError(e, 'Compacted'));
      });

      test('compacting at or below the compacted revision is a no-op; above the current one fails', async (t) => {
        const backend = await fresh(t, open);
        const r1 = await backend.create('/registry/x/a', bytes('1'));
        const r2 = await backend.update('/registry/x/a', bytes('2'), r1);
        await backend.compact(r2);
        await backend.compact(r2);
        await backend.compact(r1);
        await rejectsWith(backend.get('/registry/x/a', { revision: r1 }), 'Compacted');
        await rejectsWith(backend.compact(r2 + 1), 'FutureRevision');
      });
    });

    describe('against a model', () => {
      test('racing writes, some stale, then reads at every revision, paged lists, a watch and compaction agree with a model', async (t) => {
        for (let seed = 1; seed <= 4; seed++) await modelRun(t, open, seed);
      });
    });
  });
}

interface ModelKey {
  value: string;
  createRevision: number;
  modRevision: number;
}

/**
 * Batches of writes issued together, each to its own key (how writes to one key order is a
 * test of its own): creates of present keys, updates and deletes with current, stale or no
 * expected revision, of present and missing keys. Each outcome is the one the state before
 * the batch decides; the batch's successes take the next revisions, one each. Then every
 * revision reads as the model had it (gets, and lists paged three keys at a time with the
 * remaining count), a watch from the start delivers every write with its prev value, and
 * after compaction the revisions below fail with Compacted while the rest still read the same.
 */
async function modelRun(t: TestContext, open: OpenBackend, seed: number): Promise<void> {
  const rand = random(seed);
  const backend = await fresh(t, open);
  const prefix = `/registry/model${seed}/`;
  const keys = Array.from({ length: 8 }, (_, i) => `${prefix}k${i}`);
  const start = await backend.currentRevision();
  const watch = backend.watch(prefix, start);
  t.after(() => watch.close());
  let state = new Map<string, ModelKey>();
  const states = new Map<number, Map<string, ModelKey>>([[start, state]]);
  const events: Array<{ type: string; key: string; value: string | undefined; revision: number; prev: string | undefined }> = [];
  let revision = start;
  for (let batch = 0; batch < 30; batch++) {
    const chosen = [...keys].sort(() => rand() - 0.5).slice(0, 1 + Math.floor(rand() * 5));
    const ops = chosen.map((key, i) => {
      const live = state.get(key);
      const value = `${batch}.${i}`;
      const kind = live === undefined ? (rand() < 0.7 ? 'create' : rand() < 0.5 ? 'update' : 'delete') : (['create', 'update', 'update', 'delete'] as const)[Math.floor(rand() * 4)]!;
      const how = (['current', 'stale', 'none'] as const)[Math.floor(rand() * 3)]!;
      const expectRevision = live === undefined ? revision : how === 'current' ? live.modRevision : live.modRevision - 1;
      if (kind === 'create') return { key, kind, value, run: () => backend.create(key, bytes(value)), error: live === undefined ? undefined : 'KeyExists' as const };
      if (kind === 'update') {
        return { key, kind, value, run: () => backend.update(key, bytes(value), expectRevision), error: live === undefined ? 'KeyNotFound' as const : how === 'current' ? undefined : 'RevisionMismatch' as const };
      }
      const expect = how === 'none' ? undefined : expectRevision;
      return { key, kind, value, run: () => backend.delete(key, expect), error: live === undefined ? 'KeyNotFound' as const : how === 'stale' ? 'RevisionMismatch' as const : undefined };
    });
    const outcomes = await Promise.allSettled(ops.map((op) => op.run()));
    const applied: Array<{ op: (typeof ops)[number]; revision: number }> = [];
    outcomes.forEach((outcome, i) => {
      const op = ops[i]!;
      const what = `seed ${seed}, batch ${batch}: ${op.kind} ${op.key}`;
      if (op.error !== undefined) {
        assert.equal(outcome.status, 'rejected', `${what} should fail with ${op.error}`);
        assert.ok(isStorageError((outcome as PromiseRejectedResult).reason, op.error), `${what}: ${String((outcome as PromiseRejectedResult).reason)}`);
      } else {
        assert.equal(outcome.status, 'fulfilled', `${what}: ${String((outcome as PromiseRejectedResult).reason)}`);
        applied.push({ op, revision: (outcome as PromiseFulfilledResult<number>).value });
      }
    });
    applied.sort((a, b) => a.revision - b.revision);
    assert.deepEqual(applied.map((a) => a.revision), applied.map((_, i) => revision + 1 + i), `seed ${seed}, batch ${batch}: the next revisions, one each`);
    for (const { op, revision: at } of applied) {
      state = new Map(state);
      const before = state.get(op.key);
      if (op.kind === 'delete') state.delete(op.key);
      else state.set(op.key, { value: op.value, createRevision: before?.createRevision ?? at, modRevision: at });
      states.set(at, state);
      events.push({ type: op.kind === 'delete' ? 'delete' : 'put', key: op.key, value: op.kind === 'delete' ? undefined : op.value, revision: at, prev: before?.value });
      revision = at;
    }
  }
  assert.equal(await backend.currentRevision(), revision);

  const readsAsModel = async (at: number) => {
    const expected = states.get(at)!;
    for (const key of keys) {
      const kv = await backend.get(key, { revision: at });
      const want = expected.get(key);
      assert.deepEqual(kv === undefined ? undefined : { value: text(kv.value), createRevision: kv.createRevision, modRevision: kv.modRevision }, want, `seed ${seed}: get ${key} at ${at}`);
    }
    const listed: string[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await backend.list(prefix, { revision: at, limit: 3, startAfter });
      assert.equal(page.revision, at);
      listed.push(...page.items.map((kv) => `${kv.key}=${text(kv.value)}@${kv.modRevision}`));
      if (!page.more) break;
      assert.equal(page.remaining, expected.size - listed.length, `seed ${seed}: remaining at ${at}`);
      startAfter = page.items.at(-1)!.key;
    }
    assert.deepEqual(listed, [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, m]) => `${key}=${m.value}@${m.modRevision}`), `seed ${seed}: list at ${at}`);
  };
  for (const at of states.keys()) await readsAsModel(at);

  const seen = await nextEvents(watch, events.length);
  assert.deepEqual(seen.map((e) => ({ type: e.type, key: e.kv.key, value: e.type === 'put' ? text(e.kv.value) : undefined, revision: e.revision, prev: e.prev === undefined ? undefined : text(e.prev.value) })), events, `seed ${seed}: the watch`);

  const compactAt = [...states.keys()][Math.floor(states.size / 2)]!;
  await backend.compact(compactAt);
  for (const at of states.keys()) {
    if (at < compactAt) await rejectsWith(backend.list(prefix, { revision: at }), 'Compacted');
    else await readsAsModel(at);
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
