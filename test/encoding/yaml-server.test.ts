// YAML bodies and answers through a real server: what kube-apiserver's YAML 1.1 reading makes of a body is answered as
// the same JSON body is, and YAML answers come out as its serializer writes them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const yamlBody = (raw: string) => ({ raw, headers: { 'content-type': 'application/yaml' } });

test('a ConfigMap whose data says yes in YAML is answered as the JSON body with true: 400, in the same words', async () => {
  const ns = await server.newNamespace('yaml-bool');
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const asJson = await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: true } } });
  const asYaml = await server.request('POST', path, yamlBody('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: yes\n'));
  assert.equal(asJson.status, 400, asJson.text);
  assert.equal(asYaml.status, 400, asYaml.text);
  assert.equal(asYaml.json.message, asJson.json.message);
  assert.equal(asYaml.json.reason, asJson.json.reason);
  // Quoted, it is the string.
  const quoted = await server.request('POST', path, yamlBody('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "yes"\n  "on": "0755"\n'));
  assert.equal(quoted.status, 201, quoted.text);
  assert.deepEqual(quoted.json.data, { a: 'yes', on: '0755' });
});

test('a Pod volume\'s defaultMode: 0644 in YAML is octal, 420', async () => {
  const ns = await server.newNamespace('yaml-octal');
  const pod = [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: p', 'spec:', '  containers:', '  - name: c', '    image: busybox',
    '  volumes:', '  - name: v', '    configMap:', '      name: cm', '      defaultMode: 0644', '',
  ].join('\n');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, yamlBody(pod));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.spec.volumes[0].configMap.defaultMode, 420);
});

test('a YAML answer has its keys sorted and YAML 1.1 words and timestamps quoted, as kube-apiserver writes it', async () => {
  const ns = await server.newNamespace('yaml-answer');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'y' }, data: { on: 'yes', mode: '0644', when: '2024-01-02', text: 'l1\nl2\n' } },
  });
  assert.equal(created.status, 201, created.text);
  const meta = created.json.metadata;
  const answer = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/y`, { headers: { accept: 'application/yaml' } });
  assert.equal(answer.headers['content-type'], 'application/yaml');
  assert.equal(answer.text, [
    'apiVersion: v1',
    'data:',
    '  mode: "0644"',
    '  "on": "yes"',
    '  text: |',
    '    l1',
    '    l2',
    '  when: "2024-01-02"',
    'kind: ConfigMap',
    'metadata:',
    `  creationTimestamp: "${meta.creationTimestamp}"`,
    ...(meta.managedFields === undefined ? [] : managedFieldsLines(meta.managedFields)),
    '  name: "y"', // y is YAML 1.1's true
    `  namespace: ${ns}`,
    `  resourceVersion: "${meta.resourceVersion}"`,
    `  uid: ${meta.uid}`,
    '',
  ].join('\n'));
});

/** A ConfigMap's one managedFields entry as go-yaml writes it (a sequence at its key's indentation). */
function managedFieldsLines(entries: { apiVersion: string; fieldsType: string; manager: string; operation: string; time: string }[]): string[] {
  assert.equal(entries.length, 1);
  const [entry] = entries;
  return [
    '  managedFields:',
    `  - apiVersion: ${entry!.apiVersion}`,
    `    fieldsType: ${entry!.fieldsType}`,
    '    fieldsV1:',
    '      f:data:',
    '        .: {}',
    '        f:mode: {}',
    '        f:on: {}',
    '        f:text: {}',
    '        f:when: {}',
    `    manager: ${entry!.manager}`,
    `    operation: ${entry!.operation}`,
    `    time: "${entry!.time}"`,
  ];
}
