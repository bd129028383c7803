// DeleteOptions refused or dropped as upstream's delete handlers do: a propagationPolicy
// quoted as Go quotes it, ignoreStoreReadErrorWithClusterBreakingPotential dropped before
// validation without the AllowUnsafeMalformedObjectDeletion gate, and refused on a
// deletecollection with it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../src/cli/config.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

let gateOff: TestServer;
let gateOn: TestServer;
before(async () => {
  [gateOff, gateOn] = await Promise.all([startServer(), startServer({ featureGates: { ...defaultConfig().featureGates, AllowUnsafeMalformedObjectDeletion: true } })]);
});
after(async () => {
  await Promise.all([gateOff.stop(), gateOn.stop()]);
});

/** DELETE with an optional DeleteOptions body; Node sends a DELETE body only with its length given. */
function del(server: TestServer, url: string, body?: Json) {
  if (body === undefined) return server.request('DELETE', url);
  return server.request('DELETE', url, { body, headers: { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) } });
}

async function configMap(server: TestServer, ns: string, name: string): Promise<Json> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name, labels: { sweep: 'yes' } } } });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

const invalid = (...messages: string[]) =>
  `DeleteOptions.meta.k8s.io "" is invalid: ${messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`}`;
const unsupported = (quoted: string) => `propagationPolicy: Unsupported value: ${quoted}: supported values: "Foreground", "Background", "Orphan", "nil"`;
const bothSet = (quoted: string) => `propagationPolicy: Invalid value: ${quoted}: orphanDependents and deletionPropagation cannot be both set`;

interface QuotedCase {
  name: string;
  query: string;
  message: string;
}

// ValidateDeleteOptions' field errors print the policy as Go's %#v does (strconv.Quote).
const quotedCases: QuotedCase[] = [
  { name: 'a double quote is escaped (was: printed bare beside orphanDependents)', query: 'orphanDependents=true&propagationPolicy=a%22b', message: invalid(bothSet('"a\\"b"'), unsupported('"a\\"b"')) },
  { name: 'a control character is \\x01 (was: JSON\'s \\u0001)', query: 'propagationPolicy=a%01b', message: invalid(unsupported('"a\\x01b"')) },
  { name: 'U+2028 is escaped (was: left raw)', query: 'propagationPolicy=a%E2%80%A8b', message: invalid(unsupported('"a\\u2028b"')) },
  { name: 'a printable non-ASCII letter stays', query: 'propagationPolicy=%C3%A9', message: invalid(unsupported('"é"')) },
];

describe('propagationPolicy in validation messages', () => {
  for (const c of quotedCases) {
    test(c.name, async () => {
      const ns = await gateOff.newNamespace('sweep');
      await configMap(gateOff, ns, 'c');
      const res = await del(gateOff, `/api/v1/namespaces/${ns}/configmaps/c?${c.query}`);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.message, c.message);
      assert.equal((await gateOff.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 200);
    });
  }
});

const withOthers = { ignoreStoreReadErrorWithClusterBreakingPotential: true, gracePeriodSeconds: 0, dryRun: ['All'] };
const conflicts = invalid(
  'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .dryRun',
  'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .gracePeriodSeconds',
);
const notWithCollection = invalid('ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option');

describe('ignoreStoreReadErrorWithClusterBreakingPotential without the gate: dropped before validation', () => {
  test('DELETE with other options is a normal delete (was: 422 for the conflicts)', async () => {
    const ns = await gateOff.newNamespace('sweep');
    await configMap(gateOff, ns, 'c');
    const res = await del(gateOff, `/api/v1/namespaces/${ns}/configmaps/c`, withOthers);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.equal((await gateOff.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 200, 'a dry run');
  });

  test('deletecollection in the query with gracePeriodSeconds deletes what it selects (was: 422)', async () => {
    const ns = await gateOff.newNamespace('sweep');
    await configMap(gateOff, ns, 'c');
    const res = await del(gateOff, `/api/v1/namespaces/${ns}/configmaps?ignoreStoreReadErrorWithClusterBreakingPotential=true&gracePeriodSeconds=0`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.items.map((item: Json) => item.metadata.name), ['c']);
    assert.equal((await gateOff.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 404);
  });
});

describe('ignoreStoreReadErrorWithClusterBreakingPotential with the gate', () => {
  test('DELETE with other options: 422 naming each', async () => {
    const ns = await gateOn.newNamespace('sweep');
    await configMap(gateOn, ns, 'c');
    const res = await del(gateOn, `/api/v1/namespaces/${ns}/configmaps/c`, withOthers);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.message, conflicts);
  });

  interface CollectionCase {
    name: string;
    query?: string;
    body?: Json;
    message: string;
  }
  const collectionCases: CollectionCase[] = [
    { name: 'in the query: 422, is not allowed with DELETECOLLECTION (was: deleted everything selected)', query: 'ignoreStoreReadErrorWithClusterBreakingPotential=true', message: notWithCollection },
    { name: 'in the body: 422, is not allowed with DELETECOLLECTION', body: { ignoreStoreReadErrorWithClusterBreakingPotential: true }, message: notWithCollection },
    { name: 'with other options: their conflicts come first', body: withOthers, message: conflicts },
  ];
  for (const c of collectionCases) {
    test(`deletecollection ${c.name}`, async () => {
      const ns = await gateOn.newNamespace('sweep');
      await configMap(gateOn, ns, 'c');
      const url = `/api/v1/namespaces/${ns}/configmaps?labelSelector=sweep%3Dyes${c.query === undefined ? '' : `&${c.query}`}`;
      const res = await del(gateOn, url, c.body);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.message, c.message);
      assert.deepEqual(res.json.details.causes.map((cause: Json) => cause.field), res.json.details.causes.map(() => 'ignoreStoreReadErrorWithClusterBreakingPotential'));
      assert.equal((await gateOn.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 200, 'nothing deleted');
    });
  }

  test('deletecollection with the option false deletes as usual', async () => {
    const ns = await gateOn.newNamespace('sweep');
    await configMap(gateOn, ns, 'c');
    const res = await del(gateOn, `/api/v1/namespaces/${ns}/configmaps?ignoreStoreReadErrorWithClusterBreakingPotential=false`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.items.map((item: Json) => item.metadata.name), ['c']);
  });
});

describe('preconditions of registries with their own Delete', () => {
  test('namespaces: 409 in the namespace registry\'s words, on its resource', async () => {
    const name = `sweep-ns-${Date.now()}`;
    const created = await gateOff.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } });
    assert.equal(created.status, 201, created.text);
    const res = await del(gateOff, `/api/v1/namespaces/${name}`, { preconditions: { uid: 'other' } });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json.message, `Operation cannot be fulfilled on namespaces "${name}": Precondition failed: UID in precondition: other, UID in object meta: ${created.json.metadata.uid}`);
    assert.deepEqual(res.json.details, { name, kind: 'namespaces' });
  });
});
