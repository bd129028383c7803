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
