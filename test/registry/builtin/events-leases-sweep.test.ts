// Events (core/v1 and events.k8s.io/v1) and Leases against kube-apiserver v1.36: byte
// limits, the two APIs' views of one stored Event, events.k8s.io's immutability errors,
// and Leases' CoordinatedLeaderElection fields with the gate off.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { builtinType, fields, memoryStore, putStored, storeCreate, tryUpdate } from '../../helpers/store.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const coreEvents = (ns: string, name = '') => `/api/v1/namespaces/${ns}/events${name === '' ? '' : `/${name}`}`;
const newEvents = (ns: string, name = '') => `/apis/events.k8s.io/v1/namespaces/${ns}/events${name === '' ? '' : `/${name}`}`;

/** A valid events.k8s.io/v1 Event in `ns`. */
function newEvent(ns: string, name: string): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name }, eventTime: '2024-01-01T00:00:00.000000Z',
    reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Scale', reason: 'Scaled',
    regarding: { kind: 'Deployment', name: 'web', namespace: ns }, note: 'scaled up', type: 'Normal',
  };
}

const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

// ---- lengths: Go's len() counts bytes ----

test('a note of 600 "é" (600 characters, 1200 bytes) is over the 1024 limit through both APIs', async () => {
  const ns = await server.newNamespace('ev-bytes');
  const note = 'é'.repeat(600);
  const viaNew = await server.request('POST', newEvents(ns), { body: { ...newEvent(ns, 'n'), note } });
  assert.equal(viaNew.status, 422, viaNew.text);
  assert.deepEqual(causeLines(viaNew), ['message: Invalid value: "": can have at most 1024 characters']);
  const core = {
    metadata: { name: 'c' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, eventTime: '2024-01-01T00:00:00.000000Z',
    reportingComponent: 'kubelet', reportingInstance: 'n1', action: 'Pulled', reason: 'Pulled', message: note,
  };
  const viaCore = await server.request('POST', coreEvents(ns), { body: core });
  assert.equal(viaCore.status, 422, viaCore.text);
  assert.deepEqual(causeLines(viaCore), ['message: Invalid value: "": can have at most 1024 characters']);
  // 1024 bytes exactly is fine.
  const atLimit = await server.request('POST', newEvents(ns), { body: { ...newEvent(ns, 'ok'), note: 'é'.repeat(512) } });
  assert.equal(atLimit.status, 201, atLimit.text);
});

test('reason, action and reportingInstance are limited to 128 bytes, not characters', async () => {
  const wide = 'ü'.repeat(65); // 65 characters, 130 bytes
  const e: KubeObject = {
    metadata: { name: 'e', namespace: 'default' }, involvedObject: { namespace: 'default' }, eventTime: '2024-01-01T00:00:00.000000Z',
    reportingComponent: 'kubelet', reportingInstance: wide, action: wide, reason: wide,
  };
  assert.deepEqual(fields((await storeCreate(builtinType('events'), e)).causes), [
    'reportingInstance: Invalid value: "": can have at most 128 characters',
    'action: Invalid value: "": can have at most 128 characters',
    'reason: Invalid value: "": can have at most 128 characters',
  ]);
});

// ---- one stored Event, two views, with Go's zero values ----

test('an old-style core/v1 Event reads through events.k8s.io/v1 with null deprecated timestamps', async () => {
  const ns = await server.newNamespace('ev-view');
  const created = await server.request('POST', coreEvents(ns), { body: { metadata: { name: 'old' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started' } });
  assert.equal(created.status, 201, created.text);
  const got = (await server.request('GET', newEvents(ns, 'old'))).json;
  assert.equal(got.eventTime, null);
  assert.ok('deprecatedFirstTimestamp' in got && got.deprecatedFirstTimestamp === null, JSON.stringify(got));
  assert.ok('deprecatedLastTimestamp' in got && got.deprecatedLastTimestamp === null, JSON.stringify(got));
  assert.deepEqual(got.deprecatedSource, {});
  assert.equal('reportingController' in got, false, 'omitempty in events.k8s.io/v1');
});

test('an events.k8s.io/v1 Event reads back as its create answered it, and through core/v1 with its zero fields', async () => {
  const ns = await server.newNamespace('ev-view');
  const created = await server.request('POST', newEvents(ns), { body: newEvent(ns, 'new') });
  assert.equal(created.status, 201, created.text);
  const got = await server.request('GET', newEvents(ns, 'new'));
  assert.deepEqual(got.json, created.json);
  const core = (await server.request('GET', coreEvents(ns, 'new'))).json;
  assert.ok('firstTimestamp' in core && core.firstTimestamp === null, JSON.stringify(core));
  assert.ok('lastTimestamp' in core && core.lastTimestamp === null, JSON.stringify(core));
  assert.deepEqual(core.source, {});
  // A core/v1 update of the message leaves the events.k8s.io manager's fields alone: nothing to add.
  const updated = await server.request('PUT', coreEvents(ns, 'new'), { body: { ...core, message: 'changed' } });
  assert.equal(updated.status, 200, updated.text);
  const v1Entry = updated.json.metadata.managedFields.find((m: any) => m.apiVersion === 'v1');
  assert.deepEqual(Object.keys(v1Entry.fieldsV1), ['f:message']);
});

// ---- events.k8s.io/v1 updates: ValidateEventUpdate's errors ----

test('changing the reason through events.k8s.io/v1 answers two reason causes, as upstream checks it twice', async () => {
  const ns = await server.newNamespace('ev-upd');
  const created = (await server.request('POST', newEvents(ns), { body: newEvent(ns, 'e') })).json;
  const res = await server.request('PUT', newEvents(ns, 'e'), { body: { ...created, reason: 'Other' } });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), ['reason: Invalid value: "Other": field is immutable', 'reason: Invalid value: "Other": field is immutable']);
  assert.match(res.json.message, /is invalid: reason: Invalid value: "Other": field is immutable$/);
});

test('immutable fields changed through events.k8s.io/v1 print Go values: structs by Go field names, a count unset as 0', async () => {
  const ns = await server.newNamespace('ev-upd');
  // core/v1 accepts a count and a source on a new-style event; events.k8s.io/v1 may not drop them.
  const core = {
    metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, eventTime: '2024-01-01T00:00:00.000000Z',
    reportingComponent: 'kubelet', reportingInstance: 'n1', action: 'Pulled', reason: 'Pulled', type: 'Normal', count: 3, source: { component: 'kubelet' },
  };
  assert.equal((await server.request('POST', coreEvents(ns), { body: core })).status, 201);
  const current = (await server.request('GET', newEvents(ns, 'e'))).json;
  const { deprecatedCount: _count, deprecatedSource: _source, ...rest } = current;
  const res = await server.request('PUT', newEvents(ns, 'e'), { body: { ...rest, regarding: { kind: 'Pod', name: 'q', namespace: ns } } });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), [
    `involvedObject: Invalid value: {"Kind":"Pod","Namespace":"${ns}","Name":"q","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable`,
    'source: Invalid value: {"Component":"","Host":""}: field is immutable',
    'count: Invalid value: 0: field is immutable',
  ]);
});

// ---- Leases: CoordinatedLeaderElection is off in v1.36 ----

const leases = builtinType('leases');
const lease = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'kube-system' }, spec });

test('a new Lease drops spec.strategy and spec.preferredHolder while CoordinatedLeaderElection is off', async () => {
  const ns = await server.newNamespace('lease');
  const res = await server.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
    body: { metadata: { name: 'l' }, spec: { leaseDurationSeconds: 15, strategy: 'Bogus', preferredHolder: 'b' } },
  });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.json.spec, { leaseDurationSeconds: 15 });
  // Without holderIdentity too: the dropped preferredHolder is not checked.
  const bare = await storeCreate(leases, lease({ preferredHolder: 'b' }));
  assert.deepEqual(bare.causes, []);
  assert.deepEqual(bare.obj.spec, {});
});

test('an update keeps the gated fields the stored Lease has and drops the others', async () => {
  const fx = memoryStore(leases);
  const stored = await putStored(fx, lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion' }));
  const sent = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
  sent.metadata.resourceVersion = stored.metadata.resourceVersion;
  const out = await tryUpdate(fx.store, sent);
  assert.deepEqual(out.causes, []);
  assert.deepEqual(out.obj.spec, { holderIdentity: 'a', strategy: 'OldestEmulationVersion' });
});

test('a kept strategy is checked as upstream checks it; a kept preferredHolder needs a strategy', async () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
    ['an unknown strategy', { strategy: 'Oldest' }, { strategy: 'Oldest' }, ['spec.strategy.strategy: Unsupported value: "Oldest": supported values: "OldestEmulationVersion"']],
    ['an empty strategy', { strategy: '' }, { strategy: '' }, ['spec.strategy.strategy: Unsupported value: "": supported values: "OldestEmulationVersion"']],
    ['a prefixed strategy', { strategy: 'example.com/mine' }, { strategy: 'example.com/mine' }, []],
    ['a prefixed strategy that is no qualified name', { strategy: 'a/b/c' }, { strategy: 'a/b/c' }, [
      "spec.strategy.strategy: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]],
    ['a preferredHolder without a strategy', { preferredHolder: 'b' }, { preferredHolder: 'b' }, ['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined']],
    ['a preferredHolder with a strategy, no holder', { strategy: 'OldestEmulationVersion', preferredHolder: 'b' }, { strategy: 'OldestEmulationVersion', preferredHolder: 'b' }, []],
  ];
  for (const [name, old, spec, expected] of cases) {
    const fx = memoryStore(leases);
    const stored = await putStored(fx, lease(old));
    const sent = lease(spec);
    sent.metadata.resourceVersion = stored.metadata.resourceVersion;
    assert.deepEqual(fields((await tryUpdate(fx.store, sent)).causes), expected, name);
  }
});

test('the Source column of an events.k8s.io/v1 Event names its reporting controller and instance, through both APIs', async () => {
  const ns = await server.newNamespace('ev-table');
  assert.equal((await server.request('POST', newEvents(ns), { body: newEvent(ns, 'scaled') })).status, 201);
  const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
  for (const path of [coreEvents(ns), newEvents(ns)]) {
    const res = await server.request('GET', path, { headers: table });
    assert.equal(res.status, 200, res.text);
    const source = res.json.columnDefinitions.findIndex((c: { name: string }) => c.name === 'Source');
    assert.ok(source >= 0, path);
    assert.equal(res.json.rows[0].cells[source], 'example.com/ctl, ctl-1', path);
  }
});
