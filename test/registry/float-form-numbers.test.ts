// A JSON body's integer written with a fraction or an exponent (`2.0`, `2e0`): Go's
// decoding into a built-in type's integer field refuses it, as upstream's JSON decoder
// (sigs.k8s.io/json) keeps the number's text; YAML bodies and strategic merge patches
// write it back as `2` first, and are taken.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let ns: string;
before(async () => {
  server = await startServer();
  ns = await server.newNamespace('floats');
});
after(async () => {
  await server?.stop();
});

const deployments = () => `/apis/apps/v1/namespaces/${ns}/deployments`;
const refusal = (detail: string) => `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number ${detail}`;

function deploymentJson(name: string, replicas: string, extra: { meta?: string; strategy?: string; port?: string } = {}): string {
  return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"${extra.meta ?? ''}},"spec":{"replicas":${replicas},`
    + `${extra.strategy === undefined ? '' : `"strategy":{"rollingUpdate":{"maxSurge":${extra.strategy}}},`}`
    + `"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx:1.25",`
    + `"ports":[{"containerPort":${extra.port ?? '80'}}],"resources":{"limits":{"cpu":1.0}}}]}}}}`;
}

const post = (raw: string, contentType = 'application/json') => server.request('POST', deployments(), { raw, headers: { 'content-type': contentType } });

test('a create refuses an integer field\'s number written with a fraction or an exponent, naming it as written', async () => {
  for (const replicas of ['2.0', '2e0', '2E+0', '2.50', '3000000000.0']) {
    const res = await post(deploymentJson('d', replicas));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, refusal(`${replicas} into Go struct field DeploymentSpec.spec.replicas of type int32`));
  }
  const port = await post(deploymentJson('d', '1', { port: '80.0' }));
  assert.equal(port.json.message, refusal('80.0 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32'));
  const generation = await post(deploymentJson('d', '1', { meta: ',"generation":1.0' }));
  assert.equal(generation.status, 400, generation.text);
  assert.equal(generation.json.message, refusal('1.0 into Go struct field ObjectMeta.metadata.generation of type int64'));
  // IntOrString decodes a number on its own, so Go's error names no field.
  const surge = await post(deploymentJson('d', '1', { strategy: '1.0' }));
  assert.equal(surge.json.message, refusal('1.0 into Go value of type int32'));
});

test('written as integers, or in YAML, the same numbers are taken; a quantity takes either form', async () => {
  const created = await post(deploymentJson('plain', '2'));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.spec.template.spec.containers[0].resources.limits.cpu, '1', 'a quantity written 1.0 is 1');
  const yaml = await post(`apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: yaml}\nspec:\n  replicas: 2.0\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: x}]}\n`, 'application/yaml');
  assert.equal(yaml.status, 201, yaml.text);
  assert.equal(yaml.json.spec.replicas, 2);
  const yamlJson = await post(deploymentJson('yaml-json', '2.0'), 'application/yaml');
  assert.equal(yamlJson.status, 201, `JSON sent as YAML is read as YAML: ${yamlJson.text}`);
});

test('an update and the scale subresource refuse them too', async () => {
  const current = (await server.request('GET', `${deployments()}/plain`)).json;
  const body = JSON.stringify({ ...current, spec: { ...current.spec, replicas: 0 } }).replace('"replicas":0', '"replicas":3.0');
  const put = await server.request('PUT', `${deployments()}/plain`, { raw: body, headers: { 'content-type': 'application/json' } });
  assert.equal(put.status, 400, put.text);
  assert.equal(put.json.message, refusal('3.0 into Go struct field DeploymentSpec.spec.replicas of type int32'));
  const scale = (await server.request('GET', `${deployments()}/plain/scale`)).json;
  const scaleBody = JSON.stringify({ ...scale, spec: { replicas: 0 } }).replace('"replicas":0', '"replicas":3.0');
  const scalePut = await server.request('PUT', `${deployments()}/plain/scale`, { raw: scaleBody, headers: { 'content-type': 'application/json' } });
  assert.equal(scalePut.status, 400, scalePut.text);
  assert.equal(scalePut.json.message, 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 3.0 into Go struct field ScaleSpec.spec.replicas of type int32');
});

test('JSON and merge patches keep the number\'s text (422, as their result fails to decode); a strategic merge patch does not', async () => {
  const patch = (contentType: string, raw: string, sub = '') => server.request('PATCH', `${deployments()}/plain${sub}`, { raw, headers: { 'content-type': contentType } });
  const merge = await patch('application/merge-patch+json', '{"spec":{"replicas":4.0}}');
  assert.equal(merge.status, 422, merge.text);
  assert.match(merge.json.message, /: json: cannot unmarshal number 4\.0 into Go struct field DeploymentSpec\.spec\.replicas of type int32$/);
  const json = await patch('application/json-patch+json', '[{"op":"replace","path":"/spec/replicas","value":4.0}]');
  assert.equal(json.status, 422, json.text);
  assert.match(json.json.message, /number 4\.0 into Go struct field DeploymentSpec\.spec\.replicas/);
  const scale = await patch('application/json-patch+json', '[{"op":"replace","path":"/spec/replicas","value":4.0}]', '/scale');
  assert.equal(scale.status, 422, scale.text);
  assert.match(scale.json.message, /number 4\.0 into Go struct field ScaleSpec\.spec\.replicas/);
  const replacedAgain = await patch('application/json-patch+json', '[{"op":"replace","path":"/spec/replicas","value":4.0},{"op":"replace","path":"/spec/replicas","value":5}]');
  assert.equal(replacedAgain.status, 200, `a later operation's integer is what decodes: ${replacedAgain.text}`);
  assert.equal(replacedAgain.json.spec.replicas, 5);
  const strategic = await patch('application/strategic-merge-patch+json', '{"spec":{"replicas":4.0}}');
  assert.equal(strategic.status, 200, strategic.text);
  assert.equal(strategic.json.spec.replicas, 4);
});
