// Fields named `description` are data, not documentation: upstream's published OpenAPI lost
// them with its descriptions, and the generated schemas must not prune them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test('a CRD keeps the descriptions of its schema and printer columns', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'notes.desc.example.com' },
    spec: {
      group: 'desc.example.com',
      names: { kind: 'Note', plural: 'notes' },
      scope: 'Namespaced',
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', description: 'A note.', properties: { spec: { type: 'object', description: 'What it says.', properties: { text: { type: 'string', description: 'The words.' } } } } } },
        additionalPrinterColumns: [{ name: 'Text', type: 'string', jsonPath: '.spec.text', description: 'The note itself.' }],
      }],
    },
  };
  const res = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  assert.equal(res.status, 201, res.text);
  const got = (await server.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/notes.desc.example.com')).json as typeof crd;
  const schema = got.spec.versions[0]!.schema.openAPIV3Schema;
  assert.equal(schema.description, 'A note.');
  assert.equal(schema.properties.spec.description, 'What it says.');
  assert.equal(schema.properties.spec.properties.text.description, 'The words.');
  assert.equal(got.spec.versions[0]!.additionalPrinterColumns[0]!.description, 'The note itself.');
});

test('a PriorityClass keeps its description', async () => {
  const body = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'described' }, value: 10, description: 'For tests.' };
  const res = await server.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses?fieldValidation=Strict', { body });
  assert.equal(res.status, 201, res.text);
  assert.equal((res.json as { description?: string }).description, 'For tests.');
});
