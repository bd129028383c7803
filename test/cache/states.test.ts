// CachedState: what a cache decoded is frozen when first handed out, not when decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { CachedState } from '../../src/cache/states.ts';

const decoded = (): KubeObject => ({
  kind: 'ConfigMap', apiVersion: 'v1',
  metadata: { resourceVersion: '7', name: 'a', namespace: 'ns', labels: { app: 'x' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] },
  data: { k: 'v' },
} as KubeObject);
const json = (object: KubeObject) => new TextEncoder().encode(JSON.stringify(object));

test('a decoded object given to a freezing state is frozen, to its leaves, when first handed out and not before', () => {
  const object = decoded();
  const state = new CachedState('/registry/configmaps/ns/a', json(object), 7, object, true);
  assert.equal(Object.isFrozen(object), false, 'not walked while nobody asked for it');
  const handedOut = state.object;
  assert.equal(handedOut, object);
  for (const part of [handedOut, handedOut.metadata, handedOut.metadata.labels, handedOut.metadata.managedFields, handedOut.metadata.managedFields![0], handedOut.data]) {
    assert.ok(Object.isFrozen(part));
  }
});

test('a metadata view taken first is frozen, and the object handed out afterwards is frozen whole', () => {
  const object = decoded();
  const state = new CachedState('/registry/configmaps/ns/a', json(object), 7, object, true);
  const view = state.metadataView;
  assert.ok(Object.isFrozen(view) && Object.isFrozen(view.metadata) && Object.isFrozen(view.metadata.labels));
  assert.equal(view.metadata.managedFields, undefined);
  const handedOut = state.object;
  assert.ok(Object.isFrozen(handedOut) && Object.isFrozen(handedOut.metadata) && Object.isFrozen(handedOut.data) && Object.isFrozen(handedOut.metadata.managedFields));
});

test('a state of a cache that does not freeze hands out its object as it was given', () => {
  const object = decoded();
  const state = new CachedState('/registry/configmaps/ns/a', json(object), 7, object, false);
  assert.equal(state.object, object);
  assert.equal(Object.isFrozen(object), false);
});

test('a superseded state keeps its bytes, and its event its line, in a slab shared with other superseded states', async () => {
  const { stateWithEvent } = await import('../../src/cache/states.ts');
  const made = ['a', 'b'].map((name, i) => {
    const object = { ...decoded(), metadata: { ...decoded().metadata, name, resourceVersion: String(10 + i) } } as KubeObject;
    return stateWithEvent('MODIFIED', `/registry/configmaps/ns/${name}`, undefined, json(object), 10 + i, 10 + i, true);
  });
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const before = made.map(({ state, event }) => ({ json: text(state.json), frame: text(event.frame), buffer: state.json.buffer }));
  for (const { state, event } of made) {
    // Current: the event's line is the state's own buffer, and the JSON a view into it.
    assert.equal(state.json.buffer, event.frame.buffer);
    assert.equal(event.frame.byteLength, state.json.byteLength + '{"type":"MODIFIED","object":'.length + '}\n'.length);
  }
  assert.notEqual(before[0]!.buffer, before[1]!.buffer);
  for (const { state } of made) state.release();
  made.forEach(({ state, event }, i) => {
    assert.equal(text(state.json), before[i]!.json);
    assert.equal(text(event.frame), before[i]!.frame);
    assert.equal(text(event.json), before[i]!.json);
    assert.equal(state.json.buffer, event.frame.buffer, 'the JSON is still a view into the line');
    assert.ok(Buffer.isBuffer(event.frame), 'lines stay Buffers, which streams write as they are');
    assert.equal(event.frame, event.frame, 'the view of a superseded line is made once, when first read');
  });
  assert.equal(made[0]!.state.json.buffer, made[1]!.state.json.buffer, 'both in one slab');
  assert.notEqual(made[0]!.state.json.buffer, before[0]!.buffer);
});

test('a superseded state made without a line moves its JSON to the slab; a long line keeps its own buffer', async () => {
  const { stateWithEvent } = await import('../../src/cache/states.ts');
  const loaded = new CachedState('/registry/configmaps/ns/a', json(decoded()), 7, undefined, true);
  const own = loaded.json.buffer;
  const text = new TextDecoder().decode(loaded.json);
  loaded.release();
  assert.equal(new TextDecoder().decode(loaded.json), text);
  assert.notEqual(loaded.json.buffer, own);
  const big = { ...decoded(), data: { k: 'x'.repeat(40 * 1024) } } as KubeObject;
  const { state, event } = stateWithEvent('ADDED', '/registry/configmaps/ns/big', undefined, json(big), 8, 8, true);
  const line = event.frame;
  state.release();
  assert.equal(event.frame, line, 'over 32 KiB: not copied');
});
