// Malformed values in selectors, DeleteOptions, patches and apply configurations answer
// the 4xx upstream answers (code and, where it is stable, message), never a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

interface Row {
  name: string;
  status: number;
  /** The whole message, or a part of it when the rest is long or not stable. */
  message?: string;
  includes?: string[];
}

function check(row: Row, res: { status: number; json: any; text: string }) {
  assert.equal(res.status, row.status, res.text);
  assert.equal(res.json?.kind, 'Status', res.text);
  if (row.message !== undefined) assert.equal(res.json.message, row.message);
  for (const part of row.includes ?? []) assert.ok(res.json.message.includes(part), `${JSON.stringify(part)} not in ${res.json.message}`);
}

const nameRule =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('label selectors from user data', () => {
  const noKey = [{ operator: 'In', values: ['a'] }];
  const podSpec = { containers: [{ name: 'c', image: 'busybox' }] };
  interface SelectorRow extends Row {
    collection: (ns: string) => string;
    body: Json;
  }
  const deployment = (selector: unknown): Json => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
    spec: { selector, template: { metadata: { labels: { a: 'b' } }, spec: podSpec } },
  });
  const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
  const pdbs = (ns: string) => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
  const webhooks = () => '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const webhookConfiguration = (name: string, field: string, selector: unknown): Json => ({
    metadata: { name },
    webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://hook.example.com' }, sideEffects: 'None', admissionReviewVersions: ['v1'], [field]: selector }],
  });
  const rows: SelectorRow[] = [
    {
      name: 'deployment: an expression without key is 422 as ValidateLabelSelector answers',
      collection: deployments, body: deployment({ matchLabels: { a: 'b' }, matchExpressions: noKey }), status: 422,
      includes: [
        'spec.selector.matchExpressions[0].key: Invalid value: "": name part must be non-empty',
        `spec.selector.matchExpressions[0].key: Invalid value: "": ${nameRule}`,
        'spec.selector: Invalid value: {"matchLabels":{"a":"b"},"matchExpressions":[{"key":"","operator":"In","values":["a"]}]}: invalid label selector',
      ],
    },
    {
      name: 'deployment: an expression without key or operator is 422',
      collection: deployments, body: deployment({ matchLabels: { a: 'b' }, matchExpressions: [{}] }), status: 422,
      includes: ['spec.selector.matchExpressions[0].operator: Invalid value: "": not a valid selector operator', 'invalid label selector'],
    },
    {
      name: 'deployment: an unknown operator is 422',
      collection: deployments, body: deployment({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'Foo', values: ['a'] }] }), status: 422,
      includes: ['spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator'],
    },
    {
      name: 'deployment: values as a string fails decoding into the Go type (400)',
      collection: deployments, body: deployment({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: 'a' }] }), status: 400,
      message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field LabelSelectorRequirement.spec.selector.matchExpressions.values of type []string',
    },
    {
      name: 'deployment: matchLabels as a list fails decoding (400)',
      collection: deployments, body: deployment({ matchLabels: [1] }), status: 400,
      message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal array into Go struct field LabelSelector.spec.selector.matchLabels of type map[string]string',
    },
    {
      name: 'deployment: an expression that is not an object fails decoding (400)',
      collection: deployments, body: deployment({ matchLabels: { a: 'b' }, matchExpressions: [1] }), status: 400,
      message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field LabelSelector.spec.selector.matchExpressions of type v1.LabelSelectorRequirement',
    },
    {
      name: 'poddisruptionbudget: an expression without key is 422',
      collection: pdbs, body: { metadata: { name: 'p' }, spec: { minAvailable: 1, selector: { matchExpressions: noKey } } }, status: 422,
      includes: ['spec.selector.matchExpressions[0].key: Invalid value: "": name part must be non-empty'],
    },
    {
      name: 'pod affinity: a label selector expression without key is 422',
      collection: (ns) => `/api/v1/namespaces/${ns}/pods`,
      body: { metadata: { name: 'p' }, spec: { ...podSpec, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k', labelSelector: { matchExpressions: noKey } }] } } } },
      status: 422,
      includes: ['spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].key'],
    },
    {
      name: 'webhook namespaceSelector: an expression without key is 422',
      collection: webhooks, body: webhookConfiguration('nssel-nokey', 'namespaceSelector', { matchExpressions: noKey }), status: 422,
      includes: ['webhooks[0].namespaceSelector.matchExpressions[0].key: Invalid value: "": name part must be non-empty'],
    },
    {
      name: 'webhook objectSelector: an expression without key is 422',
      collection: webhooks, body: webhookConfiguration('objsel-nokey', 'objectSelector', { matchExpressions: noKey }), status: 422,
      includes: ['webhooks[0].objectSelector.matchExpressions[0].key: Invalid value: "": name part must be non-empty'],
    },
    {
      name: 'webhook objectSelector: values as a string fails decoding (400)',
      collection: webhooks, body: webhookConfiguration('objsel-values', 'objectSelector', { matchExpressions: [{ key: 'a', operator: 'In', values: 'a' }] }), status: 400,
      message: 'ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: json: cannot unmarshal string into Go struct field LabelSelectorRequirement.webhooks.objectSelector.matchExpressions.values of type []string',
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const ns = await server.newNamespace('selector');
      check(row, await server.request('POST', row.collection(ns), { body: row.body }));
    });
  }
});

describe('DeleteOptions with values of the wrong type', () => {
  /** Node sends a DELETE body only with its length given. */
  const del = (url: string, body: unknown) =>
    server.request('DELETE', url, { raw: JSON.stringify(body), headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(JSON.stringify(body))) } });
  interface DeleteRow extends Row {
    body?: unknown;
    query?: string;
  }
  const typeError = (what: string, field: string, type: string) => `json: cannot unmarshal ${what} into Go struct field ${field} of type ${type}`;
  const rows: DeleteRow[] = [
    { name: 'dryRun a number', body: { dryRun: 1 }, status: 400, message: typeError('number', 'DeleteOptions.dryRun', '[]string') },
    { name: 'dryRun a string', body: { dryRun: 'All' }, status: 400, message: typeError('string', 'DeleteOptions.dryRun', '[]string') },
    { name: 'dryRun with a number in it', body: { dryRun: [1] }, status: 400, message: typeError('number', 'DeleteOptions.dryRun', 'string') },
    { name: 'propagationPolicy a number', body: { propagationPolicy: 1 }, status: 400, message: typeError('number', 'DeleteOptions.propagationPolicy', 'v1.DeletionPropagation') },
    { name: 'preconditions a string', body: { preconditions: 'x' }, status: 400, message: typeError('string', 'DeleteOptions.preconditions', 'v1.Preconditions') },
    { name: 'preconditions.uid a number', body: { preconditions: { uid: 1 } }, status: 400, message: typeError('number', 'Preconditions.preconditions.uid', 'types.UID') },
    { name: 'gracePeriodSeconds a string', body: { gracePeriodSeconds: 'a' }, status: 400, message: typeError('string', 'DeleteOptions.gracePeriodSeconds', 'int64') },
    { name: 'gracePeriodSeconds a fraction', body: { gracePeriodSeconds: 1.5 }, status: 400, message: typeError('number 1.5', 'DeleteOptions.gracePeriodSeconds', 'int64') },
    { name: 'orphanDependents a string', body: { orphanDependents: 'yes' }, status: 400, message: typeError('string', 'DeleteOptions.orphanDependents', 'bool') },
    { name: 'the first wrong value in the body is the one named', body: { orphanDependents: 'yes', dryRun: 1 }, status: 400, message: typeError('string', 'DeleteOptions.orphanDependents', 'bool') },
    { name: 'kind a number', body: { kind: 1 }, status: 400, message: "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string" },
    { name: 'a body that is a list', body: [1], status: 400, includes: ["couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct"] },
    { name: 'an unknown propagationPolicy', body: { propagationPolicy: 'x' }, status: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil"' },
    { name: 'an unknown propagationPolicy in the query', query: 'propagationPolicy=x', status: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil"' },
    { name: 'an unknown dryRun in the query', query: 'dryRun=x', status: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values: "All"' },
    { name: 'a gracePeriodSeconds in the query that is not a number', query: 'gracePeriodSeconds=abc', status: 400 },
  ];
  for (const target of ['object', 'collection'] as const) {
    for (const row of rows) {
      test(`${target}: ${row.name} is ${row.status}, and nothing is deleted`, async () => {
        const ns = await server.newNamespace('delopts');
        const collection = `/api/v1/namespaces/${ns}/configmaps`;
        assert.equal((await server.request('POST', collection, { body: { metadata: { name: 'c' } } })).status, 201);
        const url = `${target === 'object' ? `${collection}/c` : collection}${row.query === undefined ? '' : `?${row.query}`}`;
        check(row, row.body === undefined ? await server.request('DELETE', url) : await del(url, row.body));
        assert.equal((await server.request('GET', `${collection}/c`)).status, 200);
      });
    }
  }
});

describe('patches and apply configurations with malformed values', () => {
  const strategic = 'application/strategic-merge-patch+json';
  const merge = 'application/merge-patch+json';
  const jsonPatch = 'application/json-patch+json';
  const applyPatch = 'application/apply-patch+yaml';
  interface PatchRow extends Row {
    /** What is patched: a Deployment "d" with a volume, or a Pod "p" without one. */
    target: 'deployment' | 'pod';
    /** The object name in the URL, when not the target's (apply creates it). */
    objectName?: string;
    contentType: string;
    body: unknown;
  }
  const undeterminable = 'the name of the object (d based on URL) was undeterminable: name must be provided';
  const generic422 = 'the server rejected our request due to an error in our request';
  const applied = (kind: 'Deployment' | 'Pod', rest: Json): Json =>
    ({ apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1', kind, metadata: { name: kind === 'Pod' ? 'p' : 'd' }, ...rest });
  const rows: PatchRow[] = [
    // Strategic merge: upstream's patch handler makes 400 or 422 of the errors it
    // classifies and answers the others as unknown errors (500 with the message).
    { name: 'strategic: $patch a number', target: 'deployment', contentType: strategic, body: { $patch: 1 }, status: 500, message: 'unknown patch type: %!s(int64=1) in map: map[$patch:1]' },
    { name: 'strategic: $patch unknown', target: 'deployment', contentType: strategic, body: { spec: { $patch: 'bogus' } }, status: 500, message: 'unknown patch type: bogus in map: map[$patch:bogus]' },
    { name: 'strategic: $patch delete of the whole object', target: 'deployment', contentType: strategic, body: { $patch: 'delete' }, status: 400, message: undeterminable },
    { name: 'strategic: $retainKeys not a list', target: 'deployment', contentType: strategic, body: { spec: { strategy: { $retainKeys: 'x' } } }, status: 400, message: 'invalid patch format of retainKeys' },
    { name: 'strategic: a list item that is not a map', target: 'deployment', contentType: strategic, body: { spec: { template: { spec: { volumes: ['a'] } } } }, status: 500, includes: ['list element types are not identical: '] },
    { name: 'strategic: a list item without its merge key', target: 'deployment', contentType: strategic, body: { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, status: 500, message: 'map: map[image:x] does not contain declared merge key: name' },
    { name: 'strategic: a list where a map is expected', target: 'deployment', contentType: strategic, body: { spec: [1] }, status: 422, includes: ['spec'] },
    { name: 'strategic: a map where a list is expected', target: 'deployment', contentType: strategic, body: { spec: { template: { spec: { containers: { a: 1 } } } } }, status: 422, includes: ['spec.template.spec.containers'] },
    { name: 'strategic: metadata a string', target: 'deployment', contentType: strategic, body: { metadata: 'x' }, status: 422, message: ' "" is invalid: patch: Invalid value: "map[metadata:x]": cannot restore struct from: string' },
    { name: 'strategic: metadata null', target: 'deployment', contentType: strategic, body: { metadata: null }, status: 400, message: undeterminable },
    { name: 'strategic: labels a list', target: 'deployment', contentType: strategic, body: { metadata: { labels: [] } }, status: 422, message: ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:[]]]": cannot restore map from slice' },
    // Merge patch: the result is decoded into the kind's Go type.
    { name: 'merge: metadata a string', target: 'deployment', contentType: merge, body: { metadata: 'x' }, status: 422, includes: [' "" is invalid: patch: Invalid value: "', '": json: cannot unmarshal string into Go struct field Deployment.metadata of type v1.ObjectMeta'] },
    { name: 'merge: metadata null', target: 'deployment', contentType: merge, body: { metadata: null }, status: 400, message: undeterminable },
    { name: 'merge: finalizers a string', target: 'deployment', contentType: merge, body: { metadata: { finalizers: 'x' } }, status: 422, includes: ['json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'] },
    { name: 'merge: spec a list', target: 'deployment', contentType: merge, body: { spec: [] }, status: 422, includes: ['spec'] },
    // JSON Patch: under the default field validation (Warn) the body is first decoded strictly
    // into upstream's operations, whose op, path and from are strings: 400 in Go's words.
    { name: 'json: path a number', target: 'deployment', contentType: jsonPatch, body: [{ op: 'add', path: 1, value: 1 }], status: 400, message: 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string' },
    { name: 'json: op a number', target: 'deployment', contentType: jsonPatch, body: [{ op: 1, path: '/spec/replicas', value: 1 }], status: 400, message: 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string' },
    // Operations that do not apply are 422 with upstream's generic message.
    { name: 'json: add without value', target: 'deployment', contentType: jsonPatch, body: [{ op: 'add', path: '/spec/replicas' }], status: 422, message: generic422 },
    { name: 'json: an operation that is not an object', target: 'deployment', contentType: jsonPatch, body: [1], status: 400, message: 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp' },
    { name: 'json: metadata replaced by a string', target: 'deployment', contentType: jsonPatch, body: [{ op: 'replace', path: '/metadata', value: 'x' }], status: 422, includes: ['json: cannot unmarshal string into Go struct field Deployment.metadata of type v1.ObjectMeta'] },
    { name: 'json: metadata removed', target: 'deployment', contentType: jsonPatch, body: [{ op: 'remove', path: '/metadata' }], status: 400, message: undeterminable },
    // Server-side apply: structured-merge-diff refuses the configuration as a typed value (500 upstream).
    {
      name: 'apply: pod volumes not maps', target: 'pod', contentType: applyPatch, body: applied('Pod', { spec: { volumes: ['a'] } }), status: 500,
      message: 'failed to create typed patch object (/p; /v1, Kind=Pod): .spec.volumes: element 0: associative list with keys may not have non-map elements',
    },
    {
      name: 'apply: a new pod with volumes not maps', target: 'pod', objectName: 'p2', contentType: applyPatch,
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: ['a'] } }, status: 500,
      message: 'failed to create typed patch object (/p2; /v1, Kind=Pod): .spec.volumes: element 0: associative list with keys may not have non-map elements',
    },
    {
      name: 'apply: deployment template volumes not maps', target: 'deployment', contentType: applyPatch, body: applied('Deployment', { spec: { template: { spec: { volumes: ['a'] } } } }), status: 500,
      message: 'failed to create typed patch object (/d; apps/v1, Kind=Deployment): .spec.template.spec.volumes: element 0: associative list with keys may not have non-map elements',
    },
    {
      name: 'apply: labels a list', target: 'deployment', contentType: applyPatch, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: [] } }, status: 500,
      message: 'failed to create typed patch object (/d; apps/v1, Kind=Deployment): .metadata.labels: expected map, got &{[]}',
    },
    {
      name: 'apply: ownerReferences a string', target: 'deployment', contentType: applyPatch, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', ownerReferences: 'x' } }, status: 500,
      message: 'failed to create typed patch object (/d; apps/v1, Kind=Deployment): .metadata.ownerReferences: expected list, got &{x}',
    },
    { name: 'apply: apiVersion a number', target: 'deployment', contentType: applyPatch, body: { apiVersion: 1, kind: 'Deployment', metadata: { name: 'd' } }, status: 400, message: 'invalid object type: /, Kind=Deployment' },
    { name: 'apply: a configuration that is a list', target: 'deployment', contentType: applyPatch, body: [1], status: 400, message: 'error decoding YAML: json: cannot unmarshal array into Go value of type map[string]interface {}' },
    { name: 'apply: a configuration that is null', target: 'deployment', contentType: applyPatch, body: null, status: 400, message: 'invalid object type: /, Kind=' },
  ];
  for (const row of rows) {
    test(`${row.name} is ${row.status}, and the object is unchanged`, async () => {
      const ns = await server.newNamespace('patch');
      const collection = row.target === 'pod' ? `/api/v1/namespaces/${ns}/pods` : `/apis/apps/v1/namespaces/${ns}/deployments`;
      const seeded = row.target === 'pod'
        ? { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }
        : { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', emptyDir: {} }] } } } };
      const created = await server.request('POST', collection, { body: seeded });
      assert.equal(created.status, 201, created.text);
      const name = row.objectName ?? seeded.metadata.name;
      const query = row.contentType === applyPatch ? '?fieldManager=test' : '';
      check(row, await server.request('PATCH', `${collection}/${name}${query}`, { raw: JSON.stringify(row.body), headers: { 'content-type': row.contentType } }));
      const after = await server.request('GET', `${collection}/${seeded.metadata.name}`);
      assert.equal(after.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
      if (name !== seeded.metadata.name) assert.equal((await server.request('GET', `${collection}/${name}`)).status, 404);
    });
  }
});

describe('quantities that do not parse', () => {
  const quantityError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const container = (resources: Json) => ({ name: 'c', image: 'busybox', resources });
  const rows: Array<{ name: string; path: string; body: Json; message: string }> = [
    {
      name: 'a pod\'s cpu request', path: 'api/v1/namespaces/NS/pods',
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container({ requests: { cpu: 'lots' } })] } },
      message: `Pod in version "v1" cannot be handled as a Pod: ${quantityError}`,
    },
    {
      name: 'an emptyDir size limit in a Deployment\'s template', path: 'apis/apps/v1/namespaces/NS/deployments',
      body: {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container({})], volumes: [{ name: 'v', emptyDir: { sizeLimit: '1 Gi' } }] } } },
      },
      message: `Deployment in version "v1" cannot be handled as a Deployment: ${quantityError}`,
    },
    {
      name: 'a claim\'s storage request', path: 'api/v1/namespaces/NS/persistentvolumeclaims',
      body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10GB' } } } },
      message: `PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: ${quantityError}`,
    },
  ];
  for (const row of rows) {
    test(`${row.name} is 400 with upstream's decoding message, and nothing is stored`, async () => {
      const ns = await server.newNamespace('quantity');
      const path = `/${row.path.replace('NS', ns)}`;
      const body = JSON.parse(JSON.stringify(row.body).replaceAll('"NS"', JSON.stringify(ns)));
      check({ name: row.name, status: 400, message: row.message }, await server.request('POST', path, { body }));
      assert.equal((await server.request('GET', `${path}/${row.body.metadata.name}`)).status, 404);
    });
  }

  test('an int32 out of range is 400 with Go\'s decoding error, and nothing is stored', async () => {
    const ns = await server.newNamespace('int32');
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const res = await server.request('POST', path, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 3000000000, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container({})] } } } },
    });
    check({ name: 'replicas', status: 400, message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32' }, res);
    assert.equal((await server.request('GET', `${path}/d`)).status, 404);
  });

  test('an int64 out of range is 400 with Go\'s decoding error, and nothing is stored', async () => {
    const ns = await server.newNamespace('int64');
    const path = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const res = await server.request('POST', path, {
      body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { activeDeadlineSeconds: 1e19, template: { spec: { restartPolicy: 'Never', containers: [container({})] } } } },
    });
    check({ name: 'activeDeadlineSeconds', status: 400, message: 'Job in version "v1" cannot be handled as a Job: json: cannot unmarshal number 10000000000000000000 into Go struct field JobSpec.spec.activeDeadlineSeconds of type int64' }, res);
    assert.equal((await server.request('GET', `${path}/j`)).status, 404);
  });

  test('an IntOrString past int32 is 400 with its own decoding error, and nothing is stored', async () => {
    const ns = await server.newNamespace('intstr');
    const path = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
    const res = await server.request('POST', path, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: 2147483648 } } });
    check({ name: 'minAvailable', status: 400, message: 'PodDisruptionBudget in version "v1" cannot be handled as a PodDisruptionBudget: json: cannot unmarshal number 2147483648 into Go value of type int32' }, res);
    assert.equal((await server.request('GET', `${path}/p`)).status, 404);
  });

  test('numbers and quantities with surrounding space decode', async () => {
    const ns = await server.newNamespace('quantity');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container({ requests: { cpu: 0.5, memory: ' 64Mi ' } })] } },
    });
    assert.equal(res.status, 201, res.text);
  });
});

describe('times that Go cannot parse', () => {
  const timeLayout = '"2006-01-02T15:04:05Z07:00"';
  const microLayout = '"2006-01-02T15:04:05.000000Z07:00"';
  const event = (name: string, ns: string, fields: Json): Json => ({
    apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'R', message: 'm', ...fields,
  });
  const rows: Array<{ name: string; path: string; body: Json; message: string }> = [
    {
      name: 'an Event\'s firstTimestamp', path: 'api/v1/namespaces/NS/events', body: event('e', 'NS', { firstTimestamp: 'garbage' }),
      message: `Event in version "v1" cannot be handled as a Event: parsing time "garbage" as ${timeLayout}: cannot parse "garbage" as "2006"`,
    },
    {
      name: 'an Event\'s eventTime without microseconds', path: 'api/v1/namespaces/NS/events',
      body: event('e', 'NS', { eventTime: '2024-01-01T00:00:00Z', reportingComponent: 'c', reportingInstance: 'i', action: 'a' }),
      message: `Event in version "v1" cannot be handled as a Event: parsing time "2024-01-01T00:00:00Z" as ${microLayout}: cannot parse "Z" as ".000000"`,
    },
    {
      name: 'a Lease\'s renewTime', path: 'apis/coordination.k8s.io/v1/namespaces/NS/leases',
      body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { renewTime: '2024-01-01T00:00:00.123Z' } },
      message: `Lease in version "v1" cannot be handled as a Lease: parsing time "2024-01-01T00:00:00.123Z" as ${microLayout}: cannot parse ".123Z" as ".000000"`,
    },
    {
      name: 'a ConfigMap\'s creationTimestamp, which the server sets anyway', path: 'api/v1/namespaces/NS/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: '2024-02-30T00:00:00Z' } },
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "2024-02-30T00:00:00Z": day out of range',
    },
  ];
  for (const row of rows) {
    test(`${row.name} is 400 with Go's parse error, and nothing is stored`, async () => {
      const ns = await server.newNamespace('time');
      const path = `/${row.path.replace('NS', ns)}`;
      const body = JSON.parse(JSON.stringify(row.body).replaceAll('"NS"', JSON.stringify(ns)));
      check({ name: row.name, status: 400, message: row.message }, await server.request('POST', path, { body }));
      assert.equal((await server.request('GET', `${path}/${row.body.metadata.name}`)).status, 404);
    });
  }

  test('times are stored as Go writes them back: in UTC, at the type\'s precision', async () => {
    const ns = await server.newNamespace('time');
    const events = `/api/v1/namespaces/${ns}/events`;
    const created = await server.request('POST', events, {
      body: event('e', ns, { firstTimestamp: '2024-01-01T01:00:00.75+01:00', eventTime: '2024-01-01T01:00:00.123456+01:00', reportingComponent: 'c', reportingInstance: 'i', action: 'a' }),
    });
    assert.equal(created.status, 201, created.text);
    const stored = (await server.request('GET', `${events}/e`)).json;
    assert.equal(stored.firstTimestamp, '2024-01-01T00:00:00Z');
    assert.equal(stored.eventTime, '2024-01-01T00:00:00.123456Z');
  });

  test('a merge patch that leaves a time Go cannot parse is refused, and the object is unchanged', async () => {
    const ns = await server.newNamespace('time');
    const events = `/api/v1/namespaces/${ns}/events`;
    assert.equal((await server.request('POST', events, { body: event('e', ns, { lastTimestamp: '2024-01-01T00:00:00Z' }) })).status, 201);
    const res = await server.request('PATCH', `${events}/e`, { raw: JSON.stringify({ lastTimestamp: 'yesterday' }), headers: { 'content-type': 'application/merge-patch+json' } });
    // As upstream's patch handler answers a patched object that does not decode: 422 on the field `patch` (an empty kind, so the message starts with a space).
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.ok(res.json.message.startsWith(' "" is invalid: patch: Invalid value: '), res.json.message);
    assert.ok(res.json.message.includes(`parsing time "yesterday" as ${timeLayout}: cannot parse "yesterday" as "2006"`), res.json.message);
    assert.equal((await server.request('GET', `${events}/e`)).json.lastTimestamp, '2024-01-01T00:00:00Z');
  });
});

describe('[]byte fields beyond Secrets and ConfigMaps', () => {
  const webhooks = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const webhookConfiguration = (name: string, caBundle: string): Json => ({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name },
    webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://hook.example.com', caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  });

  test('a webhook\'s caBundle that is not base64 is 400 with Go\'s error, and nothing is stored', async () => {
    const res = await server.request('POST', webhooks, { body: webhookConfiguration('bad-ca', 'not base64!') });
    check({ name: 'caBundle', status: 400, message: 'ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: illegal base64 data at input byte 3' }, res);
    assert.equal((await server.request('GET', `${webhooks}/bad-ca`)).status, 404);
    const unpadded = await server.request('POST', webhooks, { body: webhookConfiguration('bad-ca', 'YWJjZA') });
    check({ name: 'caBundle', status: 400, message: 'ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: illegal base64 data at input byte 4' }, unpadded);
  });

  test('an APIService\'s caBundle likewise', async () => {
    const res = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      body: {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.bytes.example.com' },
        spec: { group: 'bytes.example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, service: { name: 's', namespace: 'default' }, caBundle: '@@@@' },
      },
    });
    check({ name: 'caBundle', status: 400, message: 'APIService in version "v1" cannot be handled as a APIService: illegal base64 data at input byte 0' }, res);
  });

  test('a caBundle is stored as its bytes encode: line breaks dropped, trailing bits cleared', async () => {
    const res = await server.request('POST', webhooks, { body: webhookConfiguration('ca-canonical', 'YWJ\njZB==') });
    assert.equal(res.status, 201, res.text);
    assert.equal((await server.request('GET', `${webhooks}/ca-canonical`)).json.webhooks[0].clientConfig.caBundle, 'YWJjZA==');
  });
});

describe('metadata of the wrong type', () => {
  test('an owner reference whose apiVersion is a number is 400 (it was a 500), and nothing is stored', async () => {
    const ns = await server.newNamespace('meta');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const res = await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ownerReferences: [{ apiVersion: 5, kind: 'X', name: 'n', uid: 'u' }] } } });
    check({ name: 'ownerReferences', status: 400, message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.apiVersion of type string' }, res);
    assert.equal((await server.request('GET', `${path}/c`)).status, 404);
  });

  test('server-set fields of the wrong type are refused, not dropped', async () => {
    const ns = await server.newNamespace('meta');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', generation: 'x' } } });
    check({ name: 'generation', status: 400, message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64' }, res);
  });

  test('a merge patch leaving a managed fields entry of the wrong type is 422, and the object is unchanged', async () => {
    const ns = await server.newNamespace('meta');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } } })).status, 201);
    const before = (await server.request('GET', `${path}/c`)).json;
    const patch = { metadata: { managedFields: [{ manager: ['x'], operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] } };
    const res = await server.request('PATCH', `${path}/c`, { raw: JSON.stringify(patch), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(res.status, 422, res.text);
    assert.ok(res.json.message.endsWith('json: cannot unmarshal array into Go struct field ManagedFieldsEntry.metadata.managedFields.manager of type string'), res.json.message);
    assert.deepEqual((await server.request('GET', `${path}/c`)).json, before);
  });

  test('bodies no Store decodes (reviews, a Binding) have their metadata decoded too, not echoed', async () => {
    const review = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { generation: [1, 2] } },
    });
    check({ name: 'review', status: 400, message: 'SelfSubjectReview in version "v1" cannot be handled as a SelfSubjectReview: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.generation of type int64' }, review);
    const access = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { managedFields: 0 }, spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
    });
    check({ name: 'access review', status: 400, message: 'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry' }, access);
    const timed = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { deletionTimestamp: '' }, spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
    });
    check({ name: 'a time', status: 400, message: 'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"' }, timed);
    const uid = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { uid: 5 } },
    });
    check({ name: 'a uid', status: 400, message: 'SelfSubjectReview in version "v1" cannot be handled as a SelfSubjectReview: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID' }, uid);
  });

  test('server-side apply of a finalizer that is not a string is upstream\'s typed-patch 500, and nothing is stored', async () => {
    const path = '/apis/rbac.authorization.k8s.io/v1/clusterroles/fin-true';
    const res = await server.request('PATCH', `${path}?fieldManager=m`, {
      raw: JSON.stringify({ kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'fin-true', finalizers: [true] } }),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    check({
      name: 'finalizers', status: 500,
      message: 'failed to create typed patch object (/fin-true; rbac.authorization.k8s.io/v1, Kind=ClusterRole): .metadata.finalizers[=true]: expected string, got &value.valueUnstructured{Value:true}',
    }, res);
    assert.equal((await server.request('GET', path)).status, 404);
  });
});

describe('metadata decoded as Go decodes ObjectMeta, on create, update and status writes', () => {
  const handled = (error: string) => `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${error}`;
  test('members of the wrong type are 400 in Go\'s words; a null label, annotation or finalizer is ""', async () => {
    const ns = await server.newNamespace('meta');
    const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
    const rows: [Json, string][] = [
      [{ name: 'a', labels: { x: 1 } }, handled('number into Go struct field ObjectMeta.metadata.labels of type string')],
      [{ name: 'a', annotations: 'x' }, handled('string into Go struct field ObjectMeta.metadata.annotations of type map[string]string')],
      [{ name: 'a', finalizers: [true] }, handled('bool into Go struct field ObjectMeta.metadata.finalizers of type string')],
      [{ name: 5 }, handled('number into Go struct field ObjectMeta.metadata.name of type string')],
    ];
    for (const [metadata, message] of rows) check({ name: message, status: 400, message }, await server.request('POST', configmaps, { body: { metadata } }));
    const created = await server.request('POST', configmaps, { body: { metadata: { name: 'c', labels: { x: null }, annotations: { y: null } } } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.json.metadata.labels, created.json.metadata.annotations], [{ x: '' }, { y: '' }]);
    const put = await server.request('PUT', `${configmaps}/c`, { body: { ...created.json, metadata: { ...created.json.metadata, labels: { x: [] } } } });
    check({ name: 'put', status: 400, message: handled('array into Go struct field ObjectMeta.metadata.labels of type string') }, put);
  });
});
