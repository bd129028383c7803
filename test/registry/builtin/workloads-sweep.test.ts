// apps/v1 workloads against kube-apiserver v1.36's rules, case by case, through a real
// server: what /status keeps of a DaemonSet (pkg/registry/apps/daemonset/strategy.go and the
// v1 conversion's template generation annotation), the terminatingReplicas counter of
// Deployment and ReplicaSet statuses, a new StatefulSet's serviceName, and the rollback
// revision a Deployment's deprecated annotation carries (pkg/apis/apps/validation).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const selector = { matchLabels: { app: 'a' } };
const templateGeneration = 'deprecated.daemonset.template.generation';

interface Cause { reason: string; message: string; field: string }

describe('apps/v1 workloads sweep', () => {
  let server: TestServer;
  let ns: string;
  const url = (resource: string, name = '', subresource = '') =>
    `/apis/apps/v1/namespaces/${ns}/${resource}${name === '' ? '' : `/${name}`}${subresource === '' ? '' : `/${subresource}`}`;

  async function create(resource: string, body: Record<string, unknown>) {
    return server.request('POST', url(resource), { body });
  }
  async function created(resource: string, body: Record<string, unknown>) {
    const res = await create(resource, body);
    assert.equal(res.status, 201, res.text);
    return res.json;
  }
  const causesOf = (json: { details?: { causes?: Cause[] } }) => (json.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

  before(async () => {
    server = await startServer();
    ns = await server.newNamespace('workloads-sweep');
  });
  after(async () => {
    await server.stop();
  });

  // The published schema requires these Go fields without omitempty; upstream decodes their absence as Go's zero.
  test('a ControllerRevision without a revision is revision 0, as Go decodes it', async () => {
    const revision = await created('controllerrevisions', { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'zero' }, data: {} });
    assert.equal(revision.revision ?? 0, 0);
    const negative = await create('controllerrevisions', { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'negative' }, data: {}, revision: -1 });
    assert.equal(negative.status, 422, negative.text);
    assert.deepEqual(negative.json.details.causes.map((c: Cause) => c.field), ['revision']);
  });

  test('a DaemonSet without a selector is told only that its template\'s labels do not match (a nil selector matches nothing)', async () => {
    const res = await create('daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'no-selector' }, spec: { template } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res.json), ['spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`']);
  });

  describe('a DaemonSet /status write keeps the template generation annotation, part of upstream\'s internal spec', () => {
    const cases: { name: string; annotations: Record<string, string> }[] = [
      { name: 'dropped by the client', annotations: { other: 'v' } },
      { name: 'changed by the client', annotations: { other: 'v', [templateGeneration]: '9' } },
    ];
    for (const [i, c] of cases.entries()) {
      test(c.name, async () => {
        const name = `ds-status-${i}`;
        const ds = await created('daemonsets', {
          apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name, annotations: { [templateGeneration]: '5' } }, spec: { selector, template },
        });
        assert.equal(ds.metadata.annotations[templateGeneration], '5');
        ds.metadata.annotations = c.annotations;
        const res = await server.request('PUT', url('daemonsets', name, 'status'), { body: ds });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.json.metadata.annotations, { other: 'v', [templateGeneration]: '5' });
        const stored = (await server.request('GET', url('daemonsets', name))).json;
        assert.equal(stored.metadata.annotations[templateGeneration], '5');
      });
    }

    test('a merge patch of /status removing it', async () => {
      const name = 'ds-status-patch';
      await created('daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name }, spec: { selector, template } });
      const res = await server.request('PATCH', url('daemonsets', name, 'status'), {
        body: { metadata: { annotations: { [templateGeneration]: null } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.metadata.annotations[templateGeneration], '1');
    });
  });

  describe('status.terminatingReplicas (DeploymentReplicaSetTerminatingReplicas, on since 1.35) may not be negative', () => {
    const kinds = [
      { resource: 'deployments', kind: 'Deployment' },
      { resource: 'replicasets', kind: 'ReplicaSet' },
    ];
    for (const { resource, kind } of kinds) {
      test(`${resource}/status answers 422 for -1 and keeps 2`, async () => {
        const name = `${resource}-terminating`;
        const obj = await created(resource, { apiVersion: 'apps/v1', kind, metadata: { name }, spec: { selector, template } });
        obj.status = { replicas: 1, terminatingReplicas: -1 };
        const bad = await server.request('PUT', url(resource, name, 'status'), { body: obj });
        assert.equal(bad.status, 422, bad.text);
        assert.deepEqual(causesOf(bad.json), ['status.terminatingReplicas: Invalid value: -1: must be greater than or equal to 0']);
        obj.status = { replicas: 1, terminatingReplicas: 2 };
        const good = await server.request('PUT', url(resource, name, 'status'), { body: obj });
        assert.equal(good.status, 200, good.text);
        assert.equal(good.json.status.terminatingReplicas, 2);
      });
    }
  });

  describe('a new StatefulSet\'s serviceName must be a DNS label (kubernetes#130233)', () => {
    const statefulSet = (name: string, serviceName?: string) => ({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec: { selector, template, ...(serviceName === undefined ? {} : { serviceName }) },
    });
    const cases: { name: string; serviceName: string; causes: string[] }[] = [
      {
        name: 'upper case and an underscore',
        serviceName: 'Bad_Name',
        causes: [
          'spec.serviceName: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
        ],
      },
      { name: 'dots', serviceName: 'a.b', causes: ['spec.serviceName: Invalid value: "a.b": must not contain dots'] },
      { name: 'longer than 63 characters', serviceName: 'a'.repeat(64), causes: [`spec.serviceName: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`] },
    ];
    for (const [i, c] of cases.entries()) {
      test(`create refuses ${c.name}`, async () => {
        const res = await create('statefulsets', statefulSet(`sts-bad-${i}`, c.serviceName));
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(causesOf(res.json), c.causes);
      });
    }

    test('create accepts a DNS label or no serviceName', async () => {
      await created('statefulsets', statefulSet('sts-good', 'web'));
      await created('statefulsets', statefulSet('sts-none'));
    });

    test('an update changing it is refused as any other spec change, its name not checked again', async () => {
      const sts = await created('statefulsets', statefulSet('sts-update', 'web'));
      sts.spec.serviceName = 'Bad_Name';
      const res = await server.request('PUT', url('statefulsets', 'sts-update'), { body: sts });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causesOf(res.json), [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ]);
    });
  });

  describe('a Deployment\'s deprecated.deployment.rollback.to annotation is its rollback revision (ValidateRollback)', () => {
    const deployment = (name: string, revision: string) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, annotations: { 'deprecated.deployment.rollback.to': revision } }, spec: { selector, template },
    });

    test('a negative revision answers 422 at spec.rollback.version', async () => {
      const res = await create('deployments', deployment('rollback-negative', '-1'));
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causesOf(res.json), ['spec.rollback.version: Invalid value: -1: must be greater than or equal to 0']);
    });

    test('an update to a negative revision answers 422 too', async () => {
      const d = await created('deployments', deployment('rollback-update', '3'));
      assert.equal(d.metadata.annotations['deprecated.deployment.rollback.to'], '3');
      d.metadata.annotations['deprecated.deployment.rollback.to'] = '-2';
      const res = await server.request('PUT', url('deployments', 'rollback-update'), { body: d });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causesOf(res.json), ['spec.rollback.version: Invalid value: -2: must be greater than or equal to 0']);
    });

    test('zero and an empty value are accepted, an empty one dropped as the conversion drops it', async () => {
      const zero = await created('deployments', deployment('rollback-zero', '0'));
      assert.equal(zero.metadata.annotations['deprecated.deployment.rollback.to'], '0');
      const empty = await created('deployments', deployment('rollback-empty', ''));
      assert.equal(empty.metadata.annotations, undefined);
    });

    test('a revision is stored as the conversion writes it back: "+07" is "7"', async () => {
      const d = await created('deployments', deployment('rollback-signed', '+07'));
      assert.equal(d.metadata.annotations['deprecated.deployment.rollback.to'], '7');
    });

    test('a revision that is no int64 is a conversion error: 400 on create, the patch\'s 422 on a merge patch', async () => {
      const res = await create('deployments', deployment('rollback-word', 'x'));
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.message,
        'Deployment in version "v1" cannot be handled as a Deployment: failed to parse annotation[deprecated.deployment.rollback.to]=x as int64: strconv.ParseInt: parsing "x": invalid syntax');
      await created('deployments', deployment('rollback-patched', '1'));
      const patched = await server.request('PATCH', url('deployments', 'rollback-patched'), {
        body: { metadata: { annotations: { 'deprecated.deployment.rollback.to': '99999999999999999999' } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      assert.equal(patched.status, 422, patched.text);
      assert.match(patched.json.message, /strconv\.ParseInt: parsing "99999999999999999999": value out of range$/);
    });
  });

  describe('a DaemonSet\'s template generation annotation must parse as an int64 (Convert_v1_DaemonSet_To_apps_DaemonSet)', () => {
    const daemonSet = (name: string, generation: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name, annotations: { [templateGeneration]: generation } }, spec: { selector, template }, ...extra,
    });

    const refused = [
      { value: 'abc', why: 'invalid syntax' },
      { value: '', why: 'invalid syntax' },
      { value: '9223372036854775808', why: 'value out of range' },
    ];
    for (const [i, c] of refused.entries()) {
      test(`create refuses ${JSON.stringify(c.value)} with 400`, async () => {
        const res = await create('daemonsets', daemonSet(`ds-generation-${i}`, c.value));
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.reason, 'BadRequest');
        assert.equal(res.json.message, `DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing ${JSON.stringify(c.value)}: ${c.why}`);
      });
    }

    test('the conversion error is said before strict decoding\'s unknown fields', async () => {
      const res = await server.request('POST', `${url('daemonsets')}?fieldValidation=Strict`, { body: daemonSet('ds-generation-strict', 'abc', { bogus: 1 }) });
      assert.equal(res.status, 400, res.text);
      assert.match(res.json.message, /strconv\.ParseInt: parsing "abc": invalid syntax$/);
    });

    test('an update answers 400, a strategic merge patch upstream\'s bare 500', async () => {
      const ds = await created('daemonsets', daemonSet('ds-generation-update', '3'));
      ds.metadata.annotations[templateGeneration] = 'x';
      const put = await server.request('PUT', url('daemonsets', 'ds-generation-update'), { body: ds });
      assert.equal(put.status, 400, put.text);
      const patch = await server.request('PATCH', url('daemonsets', 'ds-generation-update'), {
        body: { metadata: { annotations: { [templateGeneration]: 'y' } } },
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      });
      assert.equal(patch.status, 500, patch.text);
      assert.equal(patch.json.message, 'strconv.ParseInt: parsing "y": invalid syntax');
      assert.equal(patch.json.reason, undefined);
      const stored = (await server.request('GET', url('daemonsets', 'ds-generation-update'))).json;
      assert.equal(stored.metadata.annotations[templateGeneration], '3');
    });
  });
});
