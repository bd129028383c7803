// CustomResourceDefinitions whose objects take any fields, made and waited for until served.
import assert from 'node:assert/strict';
import { eventually } from './eventually.ts';
import type { TestServer } from './server.ts';

/** Makes a v1 CRD of `group` per [scope, plural, kind], each preserving unknown fields, and waits until every one is served. */
export async function serveOpenCrds(server: TestServer, group: string, kinds: ReadonlyArray<readonly [scope: 'Namespaced' | 'Cluster', plural: string, kind: string]>): Promise<void> {
  for (const [scope, plural, kind] of kinds) {
    const body = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
      spec: {
        group, scope, names: { plural, singular: kind.toLowerCase(), kind },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    const res = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body });
    assert.equal(res.status, 201, res.text);
  }
  // Served within moments of creation.
  for (const [, plural] of kinds) {
    const served = `/apis/${group}/v1/${plural}`;
    await eventually(async () => assert.equal((await server.request('GET', served)).status, 200), { what: `${served} to be served` });
  }
}

/**
 * Replaces the schema of CRD `name`'s first version (objects stored before stay as they were)
 * and waits until the create `probe` sends to `path` is refused by the new one.
 */
export async function replaceCrdSchema(server: TestServer, name: string, schema: unknown, probe: { path: string; body: unknown }): Promise<void> {
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  const current = (await server.request('GET', crdPath)).json;
  current.spec.versions[0].schema = schema;
  const res = await server.request('PUT', crdPath, { body: current });
  assert.equal(res.status, 200, res.text);
  await eventually(async () => {
    const refused = await server.request('POST', probe.path, { body: probe.body });
    assert.equal(refused.status, 422, refused.text);
  }, { what: `${name}'s new schema to be served` });
}

/** PUTs the object at `path` back with its spec as `change` leaves it (and `labels`, when given). */
export async function putChangedSpec(server: TestServer, path: string, change: (spec: Record<string, any>) => void, labels?: Record<string, string>) {
  const stored = (await server.request('GET', path)).json;
  change(stored.spec);
  if (labels !== undefined) stored.metadata.labels = labels;
  return server.request('PUT', path, { body: stored });
}
