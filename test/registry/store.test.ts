// The generic Store over the memory backend with a minimal test type: create (names, generateName, server-set metadata), update (optimistic concurrency, create-on-update, retries, no-ops), delete (preconditions, finalizers), dry run, field validation, admission, allocator hooks, managed fields and apply.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { forbidden, isStatusError, type KubeObject, type StatusCause } from '../../src/api/index.ts';
import { runInRequestContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { objectKey } from '../../src/registry/keys.ts';
import type { Allocation, Allocator, ResourceType } from '../../src/registry/resource-type.ts';
import { builtinDefinitions, schemaRef, type Definitions } from '../../src/schema/index.ts';
import { memoryStore, putStored, type StoreFixture } from '../helpers/store.ts';

const schemaName = 'com.example.test.v1.Widget';

const definitions: Definitions = {
  ...builtinDefinitions,
  [schemaName]: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
      spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  },
};

interface WidgetSpec { size?: number; color?: string }

/** A minimal strategy, like upstream's store tests use: generation, status reset, one validation rule. */
function widgets(overrides: Partial<ResourceType> = {}): ResourceType {
  return {
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    singular: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
    subresources: ['status'],
    schemaName,
    allowCreateOnUpdate: false,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    strategy: {
      prepareForCreate(obj) {
        obj.metadata.generation = 1;
        delete obj.status;
      },
      prepareForUpdate(obj, old) {
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
        if (!isDeepStrictEqual(obj.spec, old.spec)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      },
      validate(obj) {
        const size = (obj.spec as WidgetSpec | undefined)?.size;
        return size !== undefined && size < 0 ? [{ reason: 'FieldValueInvalid', field: 'spec.size', message: `Invalid value: ${size}: must be greater than or equal to 0` }] : [];
      },
    },
    ...overrides,
  };
}

function setup(overrides: Partial<ResourceType> = {}, admission: { admitted?: AdmissionAttributes[] } = {}): StoreFixture {
  const plugins = admission.admitted === undefined ? [] : [{ name: 'Record', admit: (attrs: AdmissionAttributes) => void admission.admitted!.push(attrs) }];
  return memoryStore(widgets(overrides), { definitions, admission: plugins });
}

function widget(name: string, spec: WidgetSpec = { size: 1 }, metadata: KubeObject['metadata'] = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'ns', ...metadata }, spec };
}

interface Failure { code: number; reason: string; message: string; causes: StatusCause[] }

async function failure(p: Promise<unknown>): Promise<Failure> {
  try {
    await p;
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { code: err.code, reason: err.reason, message: err.message, causes: err.details?.causes ?? [] };
  }
  assert.fail('expected the call to fail');
}

const modified = 'Operation cannot be fulfilled on widgets.example.com "w": the object has been modified; please apply your changes to the latest version and try again';

/** Math.random answering `values` in turn (then the last one): names generated from it are known in advance. */
function fixRandom(t: TestContext, values: number[]): void {
  let i = 0;
  t.mock.method(Math, 'random', () => values[Math.min(i++, values.length - 1)]!);
}

// ---- create ----

const nameCases: { name: string; metadata: KubeObject['metadata']; stored?: RegExp; error?: Partial<Failure> }[] = [
  { name: 'a given name is kept', metadata: { name: 'w1' }, stored: /^w1$/ },
  { name: 'generateName gets five characters of upstream\'s alphabet', metadata: { generateName: 'w-' }, stored: /^w-[bcdfghjklmnpqrstvwxz2456789]{5}$/ },
  { name: 'a name wins over generateName', metadata: { name: 'w1', generateName: 'w-' }, stored: /^w1$/ },
  {
    name: 'neither name nor generateName is 422',
    metadata: {},
    error: { code: 422, reason: 'Invalid', message: 'Widget.example.com "" is invalid: metadata.name: Required value: name or generateName is required' },
  },
  {
    name: 'an invalid name is 422',
    metadata: { name: 'Bad_Name' },
    error: { code: 422, reason: 'Invalid' },
  },
];

for (const c of nameCases) {
  test(`create: ${c.name}`, async () => {
    const { store } = setup();
    const input: KubeObject = { metadata: { namespace: 'ns', ...c.metadata }, spec: { size: 1 } };
    if (c.error !== undefined) {
      const got = await failure(store.create('ns', input));
      for (const [key, value] of Object.entries(c.error)) assert.equal(got[key as keyof Failure], value, key);
      return;
    }
    const created = await store.create('ns', input);
    assert.match(created.metadata.name!, c.stored!);
    assert.deepEqual(await store.find('ns', created.metadata.name!), created);
  });
}

test('create: the server sets uid, creationTimestamp, resourceVersion and (by strategy) generation, whatever the body says', async () => {
  const { store, backend } = setup();
  const created = await store.create('ns', widget('w', { size: 1 }, {
    uid: 'client-uid', creationTimestamp: '2001-01-01T00:00:00Z', generation: 7, deletionTimestamp: '2001-01-01T00:00:00Z', deletionGracePeriodSeconds: 5, selfLink: '/x',
  }));
  const meta = created.metadata;
  assert.match(meta.uid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(meta.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.notEqual(meta.creationTimestamp, '2001-01-01T00:00:00Z');
  assert.equal(meta.resourceVersion, String(await backend.currentRevision()));
  assert.equal(meta.generation, 1);
  assert.equal(meta.deletionTimestamp, undefined);
  assert.equal(meta.deletionGracePeriodSeconds, undefined);
  assert.equal(meta.selfLink, undefined);
  assert.equal(meta.namespace, 'ns');
  assert.equal(created.apiVersion, 'example.com/v1');
  assert.equal(created.kind, 'Widget');
  assert.equal(created.status, undefined, 'the strategy drops status on create');
});

test('create: the namespace comes from the request; another in the body is 400', async () => {
  const { store } = setup();
  assert.equal((await store.create('ns', { metadata: { name: 'w' }, spec: {} })).metadata.namespace, 'ns');
  const got = await failure(store.create('other', widget('x')));
  assert.deepEqual([got.code, got.message], [400, 'the namespace of the provided object does not match the namespace sent on the request']);
});

test('create: a kind or apiVersion other than the URL\'s is 400', async () => {
  const { store } = setup();
  assert.equal((await failure(store.create('ns', { ...widget('w'), kind: 'Gadget' }))).message, 'the kind in the data (Gadget) does not match the expected kind (Widget)');
  assert.equal((await failure(store.create('ns', { ...widget('w'), apiVersion: 'example.com/v2' }))).message, 'the API version in the data (example.com/v2) does not match the expected API version (example.com/v1)');
});

test('create: the strategy\'s validation answers 422 with its causes', async () => {
  const { store, backend } = setup();
  const before = await backend.currentRevision();
  const got = await failure(store.create('ns', widget('w', { size: -1 })));
  assert.equal(got.code, 422);
  assert.equal(got.message, 'Widget.example.com "w" is invalid: spec.size: Invalid value: -1: must be greater than or equal to 0');
  assert.equal(await backend.currentRevision(), before);
});

test('create: a taken name is 409 AlreadyExists', async () => {
  const { store } = setup();
  await store.create('ns', widget('w'));
  const got = await failure(store.create('ns', widget('w')));
  assert.deepEqual([got.code, got.reason, got.message], [409, 'AlreadyExists', 'widgets.example.com "w" already exists']);
});

test('create: a generated name that is taken is generated again', async (t) => {
  const { store } = setup();
  fixRandom(t, [0]);
  const taken = await store.create('ns', { metadata: { generateName: 'w-' }, spec: {} });
  assert.equal(taken.metadata.name, 'w-bbbbb');
  // The next five draws collide again; the five after them give "w-ccccc".
  fixRandom(t, [0, 0, 0, 0, 0, 1 / 27, 1 / 27, 1 / 27, 1 / 27, 1 / 27]);
  const created = await store.create('ns', { metadata: { generateName: 'w-' }, spec: {} });
  assert.equal(created.metadata.name, 'w-ccccc');
});

test('create: after eight generated names taken, 409 AlreadyExists with upstream\'s message and a retry delay', async (t) => {
  const { store } = setup();
  fixRandom(t, [0]);
  await store.create('ns', { metadata: { generateName: 'w-' }, spec: {} });
  let draws = 0;
  t.mock.method(Math, 'random', () => (draws++, 0));
  const err = await store.create('ns', { metadata: { generateName: 'w-' }, spec: {} }).catch((e: unknown) => e);
  assert.ok(isStatusError(err));
  assert.equal(draws, 8 * 5, 'eight attempts of five characters');
  assert.deepEqual(err.toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'widgets.example.com "w-bbbbb" already exists, the server was not able to generate a unique name for the object',
    reason: 'AlreadyExists',
    details: { name: 'w-bbbbb', group: 'example.com', kind: 'widgets', retryAfterSeconds: 1 },
    code: 409,
  });
  assert.equal(err.headers['Retry-After'], '1');
});

test('create: a dry run answers the object and stores nothing', async () => {
  const admitted: AdmissionAttributes[] = [];
  const { store, backend } = setup({}, { admitted });
  const before = await backend.currentRevision();
  const created = await store.create('ns', widget('w'), { dryRun: true });
  assert.equal(created.metadata.name, 'w');
  assert.equal(created.metadata.generation, 1);
  assert.equal(created.metadata.resourceVersion, undefined);
  assert.equal(admitted[0]!.dryRun, true);
  assert.equal(await backend.currentRevision(), before, 'no write, so no watch event');
  assert.equal(await store.find('ns', 'w'), undefined);
});

test('create: a dry run of a taken name is 409 as the real create', async () => {
  const { store } = setup();
  await store.create('ns', widget('w'));
  assert.equal((await failure(store.create('ns', widget('w'), { dryRun: true }))).reason, 'AlreadyExists');
});

// ---- update ----

test('update: with the stored resourceVersion it writes, bumps the generation on a spec change and keeps status', async (t) => {
  const fx = setup();
  const created = await fx.store.create('ns', widget('w'));
  await putStored(fx, { ...created, status: { ready: true } });
  const stored = (await fx.store.find('ns', 'w'))!;
  const next = structuredClone(stored);
  next.spec = { size: 2 };
  next.status = { ready: false };
  const { object, created: wasCreated } = await fx.store.update('ns', 'w', next);
  assert.equal(wasCreated, false);
  assert.equal(object.metadata.resourceVersion, String(await fx.backend.currentRevision()));
  assert.ok(Number(object.metadata.resourceVersion) > Number(stored.metadata.resourceVersion));
  assert.equal(object.metadata.generation, 2);
  assert.deepEqual(object.status, { ready: true });
  assert.equal(object.metadata.uid, created.metadata.uid);
  assert.equal(object.metadata.creationTimestamp, created.metadata.creationTimestamp);
  assert.deepEqual(await fx.store.find('ns', 'w'), object);
  t.diagnostic(`stored at ${object.metadata.resourceVersion}`);
});

const conditionCases: { name: string; resourceVersion: (stored: string) => string | undefined; error?: string }[] = [
  { name: 'the stored resourceVersion writes', resourceVersion: (rv) => rv },
  { name: 'no resourceVersion writes unconditionally', resourceVersion: () => undefined },
  { name: 'an empty resourceVersion writes unconditionally', resourceVersion: () => '' },
  { name: 'a stale resourceVersion is 409 Conflict', resourceVersion: (rv) => String(Number(rv) - 1), error: modified },
  { name: 'a future resourceVersion is 409 Conflict', resourceVersion: (rv) => String(Number(rv) + 100), error: modified },
];

for (const c of conditionCases) {
  test(`update: ${c.name}`, async () => {
    const { store, backend } = setup();
    await store.create('ns', widget('w'));
    const stored = await store.update('ns', 'w', widget('w', { size: 2 }));
    const next = widget('w', { size: 3 }, { resourceVersion: c.resourceVersion(stored.object.metadata.resourceVersion!) });
    const before = await backend.currentRevision();
    if (c.error !== undefined) {
      const got = await failure(store.update('ns', 'w', next));
      assert.deepEqual([got.code, got.reason, got.message], [409, 'Conflict', c.error]);
      assert.equal(await backend.currentRevision(), before);
      return;
    }
    const { object } = await store.update('ns', 'w', next);
    assert.deepEqual(object.spec, { size: 3 });
    assert.equal(object.metadata.resourceVersion, String(before + 1));
  });
}

test('update: a type without unconditional update refuses a PUT without resourceVersion (422)', async () => {
  const { store } = setup({ allowUnconditionalUpdate: false });
  await store.create('ns', widget('w'));
  const got = await failure(store.update('ns', 'w', widget('w', { size: 2 })));
  // Named by the resource, as upstream's store names it (its error has no field for one).
  assert.deepEqual([got.code, got.message], [422, 'widgets.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
  const details = await store.update('ns', 'w', widget('w', { size: 2 })).catch((err: { details?: Record<string, unknown> }) => err.details);
  assert.deepEqual({ ...details, causes: undefined }, { name: 'w', group: 'example.com', kind: 'widgets', causes: undefined });
  // A subresource's PUT body too; a patch, which carries none, is not refused.
  const status = await failure(store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => ({ ...current!, status: { ready: true } }), { subresource: 'status', resourceVersionFromBody: true }));
  assert.equal(status.code, 422);
  const patched = await store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => ({ ...current!, spec: { size: 5 } }));
  assert.deepEqual(patched.object.spec, { size: 5 });
  // A missing object is still not found first.
  assert.equal((await failure(store.update('ns', 'gone', widget('gone')))).code, 404);
});

const missingCases: { name: string; allowCreateOnUpdate: boolean; resourceVersion?: string; created: boolean }[] = [
  { name: 'a missing object is 404 when the type does not create on update', allowCreateOnUpdate: false, created: false },
  { name: 'a missing object is created when the type allows it', allowCreateOnUpdate: true, created: true },
  { name: 'a missing object with a resourceVersion is 404 even when the type creates on update', allowCreateOnUpdate: true, resourceVersion: '5', created: false },
];

for (const c of missingCases) {
  test(`update: ${c.name}`, async () => {
    const { store } = setup({ allowCreateOnUpdate: c.allowCreateOnUpdate });
    const input = widget('', { size: 1 }, c.resourceVersion === undefined ? {} : { resourceVersion: c.resourceVersion });
    if (!c.created) {
      const got = await failure(store.update('ns', 'w', input));
      assert.deepEqual([got.code, got.reason, got.message], [404, 'NotFound', 'widgets.example.com "w" not found']);
      return;
    }
    const { object, created } = await store.update('ns', 'w', input);
    assert.equal(created, true);
    assert.equal(object.metadata.name, 'w');
    assert.equal(object.metadata.generation, 1, 'created by the create rules');
    assert.deepEqual(await store.find('ns', 'w'), object);
  });
}

test('update: a name other than the URL\'s is 400', async () => {
  const { store } = setup();
  await store.create('ns', widget('w'));
  assert.equal((await failure(store.update('ns', 'w', widget('v')))).message, 'the name of the object (v) does not match the name on the URL (w)');
});

test('update: a uid other than the stored one is 409 (a precondition)', async () => {
  const { store } = setup();
  const created = await store.create('ns', widget('w'));
  const got = await failure(store.update('ns', 'w', widget('w', { size: 2 }, { uid: 'other' })));
  assert.deepEqual([got.code, got.reason, got.message], [409, 'Conflict', `Operation cannot be fulfilled on widgets.example.com "w": Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata.uid}`]);
});

test('update: server-set metadata in the body is ignored', async () => {
  const { store } = setup();
  const created = await store.create('ns', widget('w'));
  const { object } = await store.update('ns', 'w', widget('w', { size: 2 }, { creationTimestamp: '2001-01-01T00:00:00Z', generation: 40, selfLink: '/x' }));
  assert.equal(object.metadata.creationTimestamp, created.metadata.creationTimestamp);
  assert.equal(object.metadata.generation, 2);
  assert.equal(object.metadata.selfLink, undefined);
  // A deletion timestamp is not ignored but refused: only a delete sets one (upstream's BeforeUpdate and ObjectMeta validation).
  const stamped = await failure(store.update('ns', 'w', widget('w', { size: 3 }, { deletionTimestamp: '2001-01-01T00:00:00Z' })));
  assert.deepEqual([stamped.code, stamped.causes[0]?.field], [422, 'metadata.deletionTimestamp']);
});

test('update: the strategy\'s validation answers 422 and nothing is written', async () => {
  const { store, backend } = setup();
  await store.create('ns', widget('w'));
  const before = await backend.currentRevision();
  assert.equal((await failure(store.update('ns', 'w', widget('w', { size: -1 })))).code, 422);
  assert.equal(await backend.currentRevision(), before);
});

test('update: a write that changes nothing keeps the resourceVersion and writes nothing', async () => {
  const { store, backend } = setup();
  const created = await store.create('ns', widget('w', { size: 1, color: 'red' }));
  const before = await backend.currentRevision();
  // The same content with its keys in another order, without resourceVersion.
  const { object } = await store.update('ns', 'w', { kind: 'Widget', spec: { color: 'red', size: 1 }, metadata: { namespace: 'ns', name: 'w' } });
  assert.equal(object.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(await backend.currentRevision(), before);
});

test('update: a dry run answers the updated object at the stored resourceVersion and stores nothing', async () => {
  const { store, backend } = setup();
  const created = await store.create('ns', widget('w'));
  const before = await backend.currentRevision();
  const { object } = await store.update('ns', 'w', widget('w', { size: 5 }), { dryRun: true });
  assert.deepEqual(object.spec, { size: 5 });
  assert.equal(object.metadata.generation, 2);
  assert.equal(object.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(await backend.currentRevision(), before, 'no write, so no watch event');
  assert.deepEqual(await store.find('ns', 'w'), created);
});

test('update: the status subresource changes status only', async () => {
  const { store } = setup();
  const created = await store.create('ns', widget('w', { size: 1 }, { labels: { a: 'b' } }));
  const next = { ...structuredClone(created), spec: { size: 9 }, status: { ready: true } };
  next.metadata.labels = { a: 'changed' };
  const { object } = await store.guaranteedUpdate('ns', 'w', undefined, {}, () => next, { subresource: 'status' });
  assert.deepEqual(object.spec, { size: 1 });
  assert.deepEqual(object.metadata.labels, { a: 'b' });
  assert.deepEqual(object.status, { ready: true });
});

test('guaranteedUpdate: a concurrent write is retried on the new object without a pinned resourceVersion', async () => {
  const fx = setup();
  await fx.store.create('ns', widget('w', { size: 1 }));
  const seen: number[] = [];
  const { object } = await fx.store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => {
    seen.push((current!.spec as WidgetSpec).size!);
    // The first time, another writer changes the object between our read and our write.
    if (seen.length === 1) void putStored(fx, { ...current!, spec: { size: 10 } });
    return { ...current!, metadata: { ...current!.metadata, labels: { touched: 'yes' } } };
  });
  assert.deepEqual(seen, [1, 10]);
  assert.deepEqual(object.spec, { size: 10 });
  assert.deepEqual(object.metadata.labels, { touched: 'yes' });
});

test('guaranteedUpdate: a concurrent write is 409 when the resourceVersion is pinned', async () => {
  const fx = setup();
  const created = await fx.store.create('ns', widget('w', { size: 1 }));
  let calls = 0;
  const got = await failure(fx.store.guaranteedUpdate('ns', 'w', created.metadata.resourceVersion, {}, (current) => {
    calls++;
    void putStored(fx, { ...current!, spec: { size: 10 } });
    return { ...current!, spec: { size: 2 } };
  }));
  assert.deepEqual([got.code, got.message, calls], [409, modified, 1]);
});

// ---- managed fields ----

test('managed fields: create and update record the writer\'s fields and time', async () => {
  const { store } = setup();
  const created = await store.create('ns', widget('w', { size: 1 }), { fieldManager: 'alice' });
  const [entry] = created.metadata.managedFields!;
  assert.equal(created.metadata.managedFields!.length, 1);
  assert.deepEqual({ ...entry, time: undefined }, {
    manager: 'alice', operation: 'Update', apiVersion: 'example.com/v1', time: undefined, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {}, 'f:size': {} } },
  });
  const { object } = await store.update('ns', 'w', { ...widget('w', { size: 1, color: 'red' }) }, { fieldManager: 'bob' });
  assert.deepEqual(object.metadata.managedFields!.map((e) => [e.manager, e.fieldsV1]), [
    ['alice', { 'f:spec': { '.': {}, 'f:size': {} } }],
    ['bob', { 'f:spec': { 'f:color': {} } }],
  ]);
  assert.deepEqual(await store.find('ns', 'w'), object);
});

test('managed fields: a write without a field manager (the server\'s own) leaves them as they are', async () => {
  const { store } = setup();
  const created = await store.create('ns', widget('w'), { fieldManager: 'alice' });
  const { object } = await store.update('ns', 'w', { ...structuredClone(created), spec: { size: 2 } });
  assert.deepEqual(object.metadata.managedFields, created.metadata.managedFields);
});

// ---- delete ----

const preconditionCases: { name: string; preconditions: (stored: KubeObject) => { uid?: string; resourceVersion?: string }; error?: (stored: KubeObject) => string }[] = [
  { name: 'no preconditions delete', preconditions: () => ({}) },
  { name: 'the stored uid and resourceVersion delete', preconditions: (s) => ({ uid: s.metadata.uid, resourceVersion: s.metadata.resourceVersion }) },
  {
    name: 'another uid is 409',
    preconditions: () => ({ uid: 'other' }),
    // Upstream's BeforeDelete words it, on the kind rather than the resource.
    error: (s) => `Operation cannot be fulfilled on Widget.example.com "w": the UID in the precondition (other) does not match the UID in record (${s.metadata.uid}). The object might have been deleted and then recreated`,
  },
  {
    name: 'another resourceVersion is 409',
    preconditions: () => ({ resourceVersion: '1' }),
    error: (s) => `Operation cannot be fulfilled on Widget.example.com "w": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${s.metadata.resourceVersion}). The object might have been modified`,
  },
];

for (const c of preconditionCases) {
  test(`delete: ${c.name}`, async () => {
    const { store } = setup();
    await store.create('ns', widget('x'));
    const stored = await store.create('ns', widget('w'));
    if (c.error !== undefined) {
      const got = await failure(store.delete('ns', 'w', { preconditions: c.preconditions(stored) }));
      assert.deepEqual([got.code, got.reason, got.message], [409, 'Conflict', c.error(stored)]);
      assert.ok((await store.find('ns', 'w')) !== undefined);
      return;
    }
    const result = await store.delete('ns', 'w', { preconditions: c.preconditions(stored) });
    assert.equal(result.deleted, true);
    assert.deepEqual(result.object, stored);
    assert.equal(await store.find('ns', 'w'), undefined);
  });
}

test('delete: a missing object is 404', async () => {
  const { store } = setup();
  const got = await failure(store.delete('ns', 'w'));
  assert.deepEqual([got.code, got.reason, got.message], [404, 'NotFound', 'widgets.example.com "w" not found']);
});

test('delete: finalizers keep the object, marked with deletionTimestamp; deleting it again writes nothing', async () => {
  const { store, backend } = setup();
  await store.create('ns', widget('w', { size: 1 }, { finalizers: ['example.com/hold'] }));
  const first = await store.delete('ns', 'w');
  assert.equal(first.deleted, false);
  assert.match(first.object.metadata.deletionTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(first.object.metadata.deletionGracePeriodSeconds, 0);
  assert.deepEqual(await store.find('ns', 'w'), first.object);
  const before = await backend.currentRevision();
  const second = await store.delete('ns', 'w');
  assert.deepEqual(second, { object: first.object, deleted: false });
  assert.equal(await backend.currentRevision(), before);
});

test('delete: removing the last finalizer of a deleting object deletes it', async () => {
  const { store } = setup();
  await store.create('ns', widget('w', { size: 1 }, { finalizers: ['example.com/a', 'example.com/b'] }));
  const marked = (await store.delete('ns', 'w')).object;
  const one = await store.update('ns', 'w', { ...structuredClone(marked), metadata: { ...marked.metadata, finalizers: ['example.com/b'] } });
  assert.deepEqual((await store.find('ns', 'w'))?.metadata.finalizers, ['example.com/b']);
  assert.equal(one.object.metadata.deletionTimestamp, marked.metadata.deletionTimestamp, 'the deletion mark stays');
  const last = await store.update('ns', 'w', { ...structuredClone(one.object), metadata: { ...one.object.metadata, finalizers: [] } });
  assert.equal(last.created, false);
  assert.equal(await store.find('ns', 'w'), undefined);
});

test('delete: a dry run deletes nothing, with or without finalizers', async () => {
  const { store, backend } = setup();
  const plain = await store.create('ns', widget('w'));
  const held = await store.create('ns', widget('h', { size: 1 }, { finalizers: ['example.com/hold'] }));
  const before = await backend.currentRevision();
  assert.deepEqual(await store.delete('ns', 'w', { dryRun: true }), { object: plain, deleted: true });
  const marked = await store.delete('ns', 'h', { dryRun: true });
  assert.equal(marked.deleted, false);
  assert.ok(marked.object.metadata.deletionTimestamp !== undefined);
  assert.equal(await backend.currentRevision(), before, 'no write, so no watch event');
  assert.deepEqual(await store.find('ns', 'w'), plain);
  assert.deepEqual(await store.find('ns', 'h'), held);
});

test('deleteCollection: deletes what matches and answers it', async () => {
  const { store } = setup();
  await store.create('ns', widget('a'));
  await store.create('ns', widget('b'));
  await store.create('other', widget('c', { size: 1 }, { namespace: 'other' }));
  const list = await store.deleteCollection('ns', undefined);
  assert.deepEqual(list.items.map((o) => o.metadata.name), ['a', 'b']);
  assert.deepEqual((await store.listAll()).map((o) => o.metadata.name), ['c']);
});

test('deleteCollection: past one page of 10,000 deletes every page and answers all it listed under the first page\'s metadata', async () => {
  const { store } = setup();
  const count = 10_003;
  for (let i = 0; i < count; i++) await store.create('ns', widget(`w${String(i).padStart(5, '0')}`));
  const list = await store.deleteCollection('ns');
  assert.equal(list.items.length, count);
  assert.equal(list.items.at(-1)?.metadata.name, 'w10002');
  // Upstream keeps the first page's list metadata: its continue token and remaining count.
  assert.equal(list.metadata.remainingItemCount, 3);
  assert.deepEqual(await store.listAll(), []);
});

test('deleteCollection: a limit deletes one page', async () => {
  const { store } = setup();
  for (const name of ['a', 'b', 'c']) await store.create('ns', widget(name));
  const page = await store.deleteCollection('ns', { limit: 2 });
  assert.deepEqual(page.items.map((o) => o.metadata.name), ['a', 'b']);
  assert.notEqual(page.metadata.continue, undefined);
  assert.deepEqual((await store.listAll()).map((o) => o.metadata.name), ['c']);
});

// ---- decoding: unknown fields, field validation, types ----

const fieldValidationCases: { directive?: 'Ignore' | 'Warn' | 'Strict'; warnings: string[]; error?: string }[] = [
  { warnings: [] },
  { directive: 'Ignore', warnings: [] },
  { directive: 'Warn', warnings: ['unknown field "spec.shape"'] },
  { directive: 'Strict', warnings: [], error: 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape"' },
];

for (const c of fieldValidationCases) {
  for (const verb of ['create', 'update'] as const) {
    test(`${verb}: an unknown field with fieldValidation ${c.directive ?? 'absent'} is ${c.error === undefined ? 'dropped' : 'refused (400)'}${c.warnings.length > 0 ? ' with a warning' : ''}`, async () => {
      const { store, backend } = setup();
      if (verb === 'update') await store.create('ns', widget('w'));
      const warnings: string[] = [];
      const context = { user: { name: 'tester', uid: '', groups: [] }, addWarning: (text: string) => void warnings.push(text) };
      const input = widget('w', { size: 2, shape: 'round' } as WidgetSpec);
      const opts = c.directive === undefined ? {} : { fieldValidation: { directive: c.directive } };
      const before = await backend.currentRevision();
      const write = runInRequestContext(context, () => (verb === 'create' ? store.create('ns', input, opts) : store.update('ns', 'w', input, opts).then((r) => r.object)));
      if (c.error !== undefined) {
        const got = await failure(write);
        assert.deepEqual([got.code, got.reason, got.message], [400, 'BadRequest', c.error]);
        assert.equal(await backend.currentRevision(), before);
        return;
      }
      const written = await write;
      assert.deepEqual(written.spec, { size: 2 });
      assert.deepEqual((await store.find('ns', 'w'))!.spec, { size: 2 });
      assert.deepEqual(warnings, c.warnings);
    });
  }
}

test('create: a value of the wrong type fails decoding into the Go type (400, Go\'s words), before the strategy validates', async () => {
  const { store } = setup();
  const got = await failure(store.create('ns', widget('w', { size: 'big' } as unknown as WidgetSpec)));
  assert.equal(got.code, 400);
  // The spec is an inline object of the Widget's: the struct named is the Widget.
  assert.equal(got.message, 'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal string into Go struct field Widget.spec.size of type int');
});

test('create: a null in a list is its element\'s zero value, as Go decodes it', async () => {
  const defs: Definitions = {
    ...definitions,
    [schemaName]: { ...definitions[schemaName]!, properties: { ...definitions[schemaName]!.properties, tags: { type: 'array', items: { type: 'string' } } } },
  };
  const { store } = memoryStore(widgets(), { definitions: defs });
  const created = await store.create('ns', { ...widget('w'), tags: ['a', null] } as unknown as KubeObject);
  assert.deepEqual(created.tags, ['a', '']);
});

// ---- admission ----

test('admission: a validating plugin\'s refusal stores nothing, on create and on update', async () => {
  const refuse = { name: 'Refuse', validate: (attrs: AdmissionAttributes) => { if ((attrs.object?.spec as WidgetSpec).size === 13) throw forbidden('unlucky'); } };
  const fx = memoryStore(widgets(), { definitions, admission: [refuse] });
  assert.equal((await failure(fx.store.create('ns', widget('w', { size: 13 })))).message, 'unlucky');
  assert.equal(await fx.store.find('ns', 'w'), undefined);
  const created = await fx.store.create('ns', widget('w', { size: 1 }));
  const before = await fx.backend.currentRevision();
  assert.equal((await failure(fx.store.update('ns', 'w', widget('w', { size: 13 })))).message, 'unlucky');
  assert.equal(await fx.backend.currentRevision(), before);
  assert.deepEqual(await fx.store.find('ns', 'w'), created);
});

test('admission: a mutating plugin\'s change is decoded and prepared again (unknown fields dropped, the strategy re-run)', async () => {
  const mutate = {
    name: 'Mutate',
    admit(attrs: AdmissionAttributes) {
      attrs.object!.spec = { size: 5, extra: true };
      attrs.object!.status = { ready: true };
      attrs.mutated = true;
    },
  };
  const { store } = memoryStore(widgets(), { definitions, admission: [mutate] });
  const created = await store.create('ns', widget('w', { size: 1 }));
  assert.deepEqual(created.spec, { size: 5 });
  assert.equal(created.status, undefined, 'prepareForCreate ran again');
  const { object } = await store.update('ns', 'w', widget('w', { size: 1 }));
  assert.deepEqual(object.spec, { size: 5 });
  assert.equal(object.status, undefined, 'prepareForUpdate ran again');
});

test('admission: an update shows the plugins the operation, the object, the stored object and the subresource', async () => {
  const admitted: AdmissionAttributes[] = [];
  const { store } = setup({}, { admitted });
  const created = await store.create('ns', widget('w'));
  await store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => ({ ...current!, status: { ready: true } }), { subresource: 'status' });
  const attrs = admitted[1]!;
  assert.deepEqual(
    [attrs.operation, attrs.namespace, attrs.name, attrs.subresource, attrs.dryRun, attrs.resource, attrs.kind],
    ['UPDATE', 'ns', 'w', 'status', false, 'widgets', 'Widget'],
  );
  assert.deepEqual(attrs.oldObject, created);
  assert.deepEqual(attrs.object!.status, { ready: true });
});

// ---- allocator hooks ----

function recordingAllocator(): { allocator: Allocator; calls: string[] } {
  const calls: string[] = [];
  const name = (obj: KubeObject) => obj.metadata.name ?? '';
  const settled = (what: string): Allocation => ({
    commit: async () => void calls.push(`commit ${what}`),
    revert: async () => void calls.push(`revert ${what}`),
  });
  const allocator: Allocator = {
    async allocate(obj, opts) {
      calls.push(`allocate ${name(obj)}${opts?.dryRun ? ' (dry run)' : ''}`);
      return settled(name(obj));
    },
    async reallocate(obj) {
      calls.push(`reallocate ${name(obj)}`);
      return settled(name(obj));
    },
    release: async (obj) => void calls.push(`release ${name(obj)}`),
    restore: async () => {},
  };
  return { allocator, calls };
}

test('allocator: allocated on create (filled in only on dry run), committed once stored, reverted when the create fails, released after delete', async () => {
  const { allocator, calls } = recordingAllocator();
  const { store } = setup({ allocatorFor: () => allocator });
  await store.create('ns', widget('w'));
  await store.create('ns', widget('d'), { dryRun: true });
  await failure(store.create('ns', widget('w')));
  await store.delete('ns', 'w');
  assert.deepEqual(calls, ['allocate w', 'commit w', 'allocate d (dry run)', 'allocate w', 'revert w', 'release w']);
});

test('allocator: an update reallocates; a write that loses to a concurrent one reverts it before retrying', async () => {
  const { allocator, calls } = recordingAllocator();
  const fx = setup({ allocatorFor: () => allocator });
  await fx.store.create('ns', widget('w'));
  let first = true;
  await fx.store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => {
    if (first) void putStored(fx, { ...current!, metadata: { ...current!.metadata, labels: { other: 'writer' } } });
    first = false;
    return { ...current!, spec: { size: 2 } };
  });
  assert.deepEqual(calls, ['allocate w', 'commit w', 'reallocate w', 'revert w', 'reallocate w', 'commit w']);
});

// ---- more of the update loop ----

test('update: create-on-update that loses the race to a concurrent create updates the new object instead', async () => {
  const fx = setup({ allowCreateOnUpdate: true });
  const seen: (string | undefined)[] = [];
  const { object, created } = await fx.store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => {
    seen.push(current?.metadata.name);
    // Someone else creates it between our read and our create.
    if (current === undefined) void fx.store.create('ns', widget('w', { size: 7 }));
    return { ...(current ?? widget('w')), metadata: { ...(current ?? widget('w')).metadata, labels: { mine: 'yes' } } };
  });
  assert.deepEqual(seen, [undefined, 'w']);
  assert.equal(created, false);
  assert.deepEqual(object.spec, { size: 7 });
  assert.deepEqual(object.metadata.labels, { mine: 'yes' });
});

test('update: an object deleted between read and write is 404 on the retry', async () => {
  const fx = setup();
  await fx.store.create('ns', widget('w'));
  const got = await failure(fx.store.guaranteedUpdate('ns', 'w', undefined, {}, (current) => {
    void fx.backend.delete(objectKey(fx.store.type, 'ns', 'w'));
    return { ...current!, spec: { size: 2 } };
  }));
  assert.deepEqual([got.code, got.reason], [404, 'NotFound']);
});

test('update: an object deleted between read and write is 404 too when the resourceVersion was pinned', async () => {
  const fx = setup();
  const stored = await fx.store.create('ns', widget('w'));
  const got = await failure(fx.store.guaranteedUpdate('ns', 'w', stored.metadata.resourceVersion, {}, (current) => {
    void fx.backend.delete(objectKey(fx.store.type, 'ns', 'w'));
    return { ...current!, spec: { size: 2 } };
  }));
  assert.deepEqual([got.code, got.reason], [404, 'NotFound']);
});

test('update: a write through a subresource never creates a missing object', async () => {
  const { store } = setup({ allowCreateOnUpdate: true });
  const got = await failure(store.guaranteedUpdate('ns', 'w', undefined, {}, () => widget('w'), { subresource: 'status' }));
  assert.deepEqual([got.code, got.reason], [404, 'NotFound']);
});

test('update: a dry run that removes the last finalizer deletes nothing', async () => {
  const { store, backend } = setup();
  await store.create('ns', widget('w', { size: 1 }, { finalizers: ['example.com/hold'] }));
  const marked = (await store.delete('ns', 'w')).object;
  const before = await backend.currentRevision();
  const { object } = await store.update('ns', 'w', { ...structuredClone(marked), metadata: { ...marked.metadata, finalizers: [] } }, { dryRun: true });
  // As Go writes it: the emptied list is not there (omitempty).
  assert.equal('finalizers' in object.metadata, false);
  assert.equal(await backend.currentRevision(), before);
  assert.deepEqual(await store.find('ns', 'w'), marked);
});

// ---- deletion held by the strategy ----

test('delete: a strategy\'s pending finalization holds the object like a finalizer, and marks it', async () => {
  const { store } = setup({
    strategy: {
      ...widgets().strategy,
      deletionPending: (obj) => (obj.spec as WidgetSpec).color === 'held',
      markDeleting: (obj) => { obj.status = { ready: false }; },
    },
  });
  await store.create('ns', widget('w', { color: 'held' }));
  const result = await store.delete('ns', 'w');
  assert.equal(result.deleted, false);
  assert.deepEqual(result.object.status, { ready: false });
  assert.ok((await store.find('ns', 'w'))?.metadata.deletionTimestamp !== undefined);
  // Releasing the hold through an update deletes it.
  await store.update('ns', 'w', { ...structuredClone(result.object), spec: { color: 'free' } });
  assert.equal(await store.find('ns', 'w'), undefined);
});

test('delete: a concurrent change between read and delete is retried with the preconditions checked again', async () => {
  let race: (() => void) | undefined;
  let validations = 0;
  // Another writer changes the object after the Store read it, once, when `race` is set.
  const plugin = { name: 'Race', validate: () => { validations++; const r = race; race = undefined; r?.(); } };
  const fx = memoryStore(widgets(), { definitions, admission: [plugin] });
  const created = await fx.store.create('ns', widget('w'));
  race = () => void putStored(fx, { ...created, spec: { size: 9 } });
  validations = 0;
  const result = await fx.store.delete('ns', 'w', { preconditions: { uid: created.metadata.uid } });
  assert.equal(result.deleted, true);
  assert.deepEqual(result.object.spec, { size: 9 }, 'the answer is the object as deleted');
  assert.equal(validations, 2);
  assert.equal(await fx.store.find('ns', 'w'), undefined);
});

// ---- server-side apply ----

test('apply: creates a missing object owned by the applier; another applier\'s change of its field is a 409 unless forced', async () => {
  const { store } = setup();
  const config = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec: { size: 1 } };
  const { object, created } = await store.apply('ns', 'w', config, { fieldManager: 'alice', force: false });
  assert.equal(created, true);
  assert.deepEqual(object.metadata.managedFields!.map((e) => [e.manager, e.operation]), [['alice', 'Apply']]);
  const other = { ...config, spec: { size: 2 } };
  const got = await failure(store.apply('ns', 'w', other, { fieldManager: 'bob', force: false }));
  assert.deepEqual([got.code, got.reason, got.message], [409, 'Conflict', 'Apply failed with 1 conflict: conflict with "alice": .spec.size']);
  const forced = await store.apply('ns', 'w', other, { fieldManager: 'bob', force: true });
  assert.deepEqual(forced.object.spec, { size: 2 });
  assert.deepEqual(forced.object.metadata.managedFields!.map((e) => e.manager), ['bob']);
});
