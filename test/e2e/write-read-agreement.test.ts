// What a write answers is what every read sees afterwards. Random writes to a few
// Deployments, of every kind a client makes (create, update, the three patches, server-side
// apply by three managers, status and scale writes, finalizers and two-phase deletion, each
// now and then as a dry run), on SQLite and in memory. Writes start from the watch cache's
// frozen copies and the cache takes the writer's objects, so a write that changed what
// another read holds, or a cache that kept something other than what was stored, would
// show here: after each write a get answers exactly the write's answer (in JSON and in
// Protobuf; a dry run changes nothing), what the write did not touch is as the get before it showed, a list at that
// exact revision holds it, and a watch from the start, and one from midway, deliver one
// event per change, each exactly the object the write answered.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProtobufCodec } from '../../src/encoding/protobuf-loader.ts';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';
import { random } from '../helpers/random.ts';

const mergePatch = { 'content-type': 'application/merge-patch+json' };
const strategicPatch = { 'content-type': 'application/strategic-merge-patch+json' };
const jsonPatch = { 'content-type': 'application/json-patch+json' };
const applyPatch = { 'content-type': 'application/apply-patch+yaml' };

/** A change the watch must show: the object as the write answered it, or its deletion. */
interface Change {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  object: any;
  what: string;
}

async function writeAndRead(server: TestServer, seed: number): Promise<void> {
  const rand = random(seed);
  const codec = await loadProtobufCodec();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const ns = await server.newNamespace(`agree-${seed}`);
  const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const start = await server.request('GET', base);
  assert.equal(start.status, 200);
  const fromStart = await openStream(server, `${base}?watch=1&resourceVersion=${start.json.metadata.resourceVersion}`);
  const names = ['d0', 'd1', 'd2'];
  /** What a get of each name answers now (undefined: absent). */
  const current = new Map<string, any>();
  const changes: Change[] = [];
  /** Revisions written, with the object each wrote, for lists at exact revisions. */
  const written: Array<{ revision: string; name: string; object: any; change: number }> = [];
  let midway: { stream: Awaited<ReturnType<typeof openStream>>; from: number } | undefined;

  const deployment = (name: string, images: string[], labels: Record<string, string>) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels },
    spec: {
      replicas: 1 + Math.floor(rand() * 3), selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } },
    },
  });
  const image = () => `registry.example/app:${Math.floor(rand() * 5)}`;

  for (let step = 0; step < 60; step++) {
    const name = pick(names);
    const path = `${base}/${name}`;
    const live = current.get(name);
    const dryRun = rand() < 0.15;
    const dry = dryRun ? 'dryRun=All' : '';
    const query = (extra = '') => [dry, extra].filter((q) => q !== '').join('&');
    const url = (p: string, extra = '') => (query(extra) === '' ? p : `${p}?${query(extra)}`);
    let what: string;
    let res;
    if (live === undefined) {
      what = 'create';
      res = await server.request('POST', url(base), { body: deployment(name, [image(), image()], { tier: pick(['a', 'b']) }) });
    } else {
      const kind = pick(['update', 'merge', 'strategic', 'json', 'apply', 'status', 'scale', 'finalize', 'delete'] as const);
      what = kind;
      switch (kind) {
        case 'update': {
          const next = structuredClone(live);
          next.metadata.labels = { ...next.metadata.labels, step: String(step) };
          next.spec.template.spec.containers[0].image = image();
          res = await server.request('PUT', url(path), { body: next });
          break;
        }
        case 'merge':
          res = await server.request('PATCH', url(path), { body: { metadata: { labels: { tier: pick(['a', 'b', null]) } }, spec: { replicas: Math.floor(rand() * 4) } }, headers: mergePatch });
          break;
        case 'strategic':
          res = await server.request('PATCH', url(path), { body: { spec: { template: { spec: { containers: [{ name: pick(['c0', 'c1', 'c9']), image: image() }] } } } }, headers: strategicPatch });
          break;
        case 'json':
          res = await server.request('PATCH', url(path), { body: [{ op: 'add', path: '/metadata/annotations', value: { at: String(step) } }], headers: jsonPatch });
          break;
        case 'apply': {
          const manager = pick(['m0', 'm1', 'm2']);
          const config = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { [`by-${manager}`]: 'yes' } }, spec: { template: { spec: { containers: [{ name: 'c0', image: image() }] } } } };
          res = await server.request('PATCH', url(path, `fieldManager=${manager}&force=true`), { body: config, headers: applyPatch });
          break;
        }
        case 'status': {
          const next = structuredClone(live);
          next.status = { replicas: Math.floor(rand() * 3), observedGeneration: live.metadata.generation };
          res = await server.request('PUT', url(`${path}/status`), { body: next });
          break;
        }
        case 'scale':
          res = await server.request('PATCH', url(`${path}/scale`), { body: { spec: { replicas: Math.floor(rand() * 5) } }, headers: mergePatch });
          break;
        case 'finalize': {
          const has = (live.metadata.finalizers ?? []).length > 0;
          res = await server.request('PATCH', url(path), { body: { metadata: { finalizers: has ? null : ['example.com/hold'] } }, headers: mergePatch });
          break;
        }
        case 'delete':
          res = await server.request('DELETE', url(path));
          break;
      }
    }
    const label = `seed ${seed}, step ${step}: ${dryRun ? 'dry-run ' : ''}${what} ${name}`;
    // A terminating object refuses new finalizers; a scale write of a terminating object may still pass. Anything else must succeed.
    if (res.status === 422 && what === 'finalize') continue;
    assert.ok(res.status === 200 || res.status === 201 || res.status === 202, `${label}: ${res.status} ${res.text.slice(0, 300)}`);

    const got = await server.request('GET', path);
    if (dryRun) {
      // Nothing changed: the same object, at the same revision.
      if (live === undefined) assert.equal(got.status, 404, label);
      else assert.deepEqual(got.json, live, label);
      continue;
    }
    if (got.status === 404) {
      // Deleted, or released by its last finalizer while terminating.
      assert.ok(what === 'delete' || (what === 'finalize' && live.metadata.deletionTimestamp !== undefined), `${label}: gone`);
      current.delete(name);
      changes.push({ type: 'DELETED', name, object: undefined, what: label });
      continue;
    }
    assert.equal(got.status, 200, label);
    // What the write did not touch is as it was: the write started from the object the get had shown.
    if (live !== undefined) assert.deepEqual(untouched(got.json, what), untouched(live, what), `${label}: what it did not touch`);
    // The get answers exactly what the write answered (for a scale write, the object it changed).
    // (A Scale omits replicas 0, as Go's omitempty does.)
    if (what === 'scale') assert.equal(got.json.spec.replicas, res.json.spec.replicas ?? 0, label);
    else assert.deepEqual(got.json, res.json, label);
    // In Protobuf (the cache keeps each state's encoding), the same object.
    const inProtobuf = await server.request('GET', path, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(inProtobuf.status, 200, label);
    assert.deepEqual(codec.decodeProtobufObject(new Uint8Array(inProtobuf.bytes)), got.json, `${label}: in Protobuf`);
    if (live === undefined || got.json.metadata.resourceVersion !== live.metadata.resourceVersion) {
      changes.push({ type: live === undefined ? 'ADDED' : 'MODIFIED', name, object: got.json, what: label });
      written.push({ revision: got.json.metadata.resourceVersion, name, object: got.json, change: changes.length - 1 });
    }
    current.set(name, got.json);
    if (step === 30 && written.length > 2) {
      // From a revision some writes ago: what changed after it comes from the cache's history.
      const after = written[Math.floor(written.length / 2)]!;
      midway = { stream: await openStream(server, `${base}?watch=1&resourceVersion=${after.revision}`), from: after.change + 1 };
    }
  }
  // Remove what holds the rest, so that every Deployment can go.
  for (const [name, live] of current) {
    if ((live.metadata.finalizers ?? []).length === 0) continue;
    const res = await server.request('PATCH', `${base}/${name}`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
    assert.equal(res.status, 200);
    if (live.metadata.deletionTimestamp !== undefined) changes.push({ type: 'DELETED', name, object: undefined, what: `final: ${name} released` });
    else changes.push({ type: 'MODIFIED', name, object: res.json, what: `final: ${name} released` });
  }

  // Lists at each revision written hold the object as that write answered it, and read in
  // pages of one (continue tokens at that revision) the same items.
  for (const w of written) {
    const list = await server.request('GET', `${base}?resourceVersion=${w.revision}&resourceVersionMatch=Exact`);
    assert.equal(list.status, 200, `list at ${w.revision}: ${list.text.slice(0, 200)}`);
    assert.deepEqual(list.json.items.find((i: any) => i.metadata.name === w.name), w.object, `list at ${w.revision}`);
    const paged: any[] = [];
    let page = await server.request('GET', `${base}?resourceVersion=${w.revision}&resourceVersionMatch=Exact&limit=1`);
    for (;;) {
      assert.equal(page.status, 200, `page at ${w.revision}: ${page.text.slice(0, 200)}`);
      assert.equal(page.json.metadata.resourceVersion, w.revision, `page at ${w.revision}`);
      paged.push(...page.json.items);
      const token = page.json.metadata.continue;
      if (token === undefined || token === '') break;
      page = await server.request('GET', `${base}?limit=1&continue=${encodeURIComponent(token)}`);
    }
    assert.deepEqual(paged, list.json.items, `paged list at ${w.revision}`);
  }

  // Each watch: one event per change, in order, each the object the write answered.
  const expectEvents = async (stream: Awaited<ReturnType<typeof openStream>>, expected: Change[], which: string) => {
    for (const change of expected) {
      const event = await stream.next();
      assert.ok(event !== undefined, `${which}: the watch ended before ${change.what}`);
      assert.equal(event.type, change.type, `${which}: ${change.what}`);
      assert.equal(event.object.metadata.name, change.name, `${which}: ${change.what}`);
      if (change.object !== undefined) assert.deepEqual(event.object, change.object, `${which}: ${change.what}`);
    }
    stream.close();
  };
  await expectEvents(fromStart, changes, `seed ${seed}, watch from the start`);
  if (midway !== undefined) await expectEvents(midway.stream, changes.slice(midway.from), `seed ${seed}, watch from midway`);
}

/** The fields each kind of write changes, besides the resourceVersion, managedFields and generation every write may. */
const touches: Record<string, string[][]> = {
  update: [['metadata', 'labels'], ['spec', 'template', 'spec', 'containers']],
  merge: [['metadata', 'labels'], ['spec', 'replicas']],
  strategic: [['spec', 'template', 'spec', 'containers']],
  json: [['metadata', 'annotations']],
  apply: [['metadata', 'labels'], ['spec', 'template', 'spec', 'containers']],
  status: [['status']],
  scale: [['spec', 'replicas']],
  finalize: [['metadata', 'finalizers']],
  delete: [['metadata', 'deletionTimestamp'], ['metadata', 'deletionGracePeriodSeconds']],
};

/** An object without what a write of this kind may change. */
function untouched(object: any, what: string): any {
  const copy = structuredClone(object);
  for (const path of [['metadata', 'resourceVersion'], ['metadata', 'managedFields'], ['metadata', 'generation'], ...(touches[what] ?? [])]) {
    let node = copy;
    for (const name of path.slice(0, -1)) node = node?.[name];
    if (node !== undefined) delete node[path.at(-1)!];
  }
  return copy;
}

for (const storage of ['sqlite', 'memory'] as const) {
  test(`what a write answers every read sees afterwards (${storage})`, { timeout: 60_000 }, async (t) => {
    const server = await startServer({ storage, enableGarbageCollector: false });
    t.after(() => server.stop());
    for (let seed = 1; seed <= 6; seed++) await writeAndRead(server, seed);
  });
}
