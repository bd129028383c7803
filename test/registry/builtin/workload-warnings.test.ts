// What the controllers of pods are warned of, as kube-apiserver v1.36's strategies give it
// (pkg/registry/core/podtemplate, replicationcontroller, pkg/registry/apps/*, batch/*): the
// pod template's warnings under the template's path on create, and on an update only when
// it changed the spec (the generation, or a DaemonSet's template generation, moved); the
// name of those whose pods are named after them; a StatefulSet's claims and history
// limit; a large Indexed Job; a CronJob's TZ= schedule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, createWarned, updateWarned } from '../../helpers/store.ts';

type Json = Record<string, unknown>;

const labels = { app: 'web' };
/** A template whose node selector names a deprecated node label, unless `plain`. */
const template = (restartPolicy?: string, plain = false) => ({
  metadata: { labels },
  spec: {
    ...(plain ? {} : { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' } }),
    ...(restartPolicy ? { restartPolicy } : {}),
    containers: [{ name: 'app', image: 'nginx:1' }],
  },
});
const archWarning = (path: string) => `${path}.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`;
const nameWarning = 'metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]';

interface Controller {
  resource: string;
  make(name: string, plain?: boolean): KubeObject;
  /** Where the pod template is. */
  templatePath: string;
  /** Whether a name that is no DNS label is warned of (its pods are named after it). */
  warnsOfName: boolean;
  /** A spec change that leaves the template as it is. */
  respec(obj: KubeObject): KubeObject;
  /** Whether such a change is warned of (it moved the generation the strategy compares). */
  respecWarns: boolean;
  /** A change of the template. */
  retemplate(obj: KubeObject): KubeObject;
}

const object = (apiVersion: string, kind: string, name: string, body: Json): KubeObject =>
  ({ apiVersion, kind, metadata: { name, namespace: 'default' }, ...body }) as KubeObject;
const withSpec = (obj: KubeObject, change: Json): KubeObject => ({ ...obj, spec: { ...(obj.spec as Json), ...change } });
const specOf = (obj: KubeObject) => obj.spec as Json;
/** The template at `spec.template` with another image. */
const reimaged = (obj: KubeObject): KubeObject => {
  const t = structuredClone(specOf(obj).template) as { spec: { containers: Json[] } };
  t.spec.containers[0]!.image = 'nginx:2';
  return withSpec(obj, { template: t });
};

const controllers: Controller[] = [
  {
    resource: 'podtemplates',
    make: (name, plain) => object('v1', 'PodTemplate', name, { template: template(undefined, plain) }),
    templatePath: 'template', warnsOfName: false,
    // A PodTemplate has nothing but its template: a change of it is the only one that counts.
    respec: (pt) => {
      const t = structuredClone((pt as unknown as { template: { spec: { containers: Json[] } } }).template);
      t.spec.containers[0]!.image = 'nginx:2';
      return { ...pt, template: t } as KubeObject;
    },
    respecWarns: true,
    retemplate: (pt) => pt,
  },
  {
    resource: 'replicationcontrollers',
    make: (name, plain) => object('v1', 'ReplicationController', name, { spec: { selector: labels, template: template(undefined, plain) } }),
    templatePath: 'spec.template', warnsOfName: true, respec: (rc) => withSpec(rc, { replicas: 3 }), respecWarns: true, retemplate: reimaged,
  },
  {
    resource: 'replicasets',
    make: (name, plain) => object('apps/v1', 'ReplicaSet', name, { spec: { selector: { matchLabels: labels }, template: template(undefined, plain) } }),
    templatePath: 'spec.template', warnsOfName: true, respec: (rs) => withSpec(rs, { replicas: 3 }), respecWarns: true, retemplate: reimaged,
  },
  {
    resource: 'deployments',
    make: (name, plain) => object('apps/v1', 'Deployment', name, { spec: { selector: { matchLabels: labels }, template: template(undefined, plain) } }),
    templatePath: 'spec.template', warnsOfName: true, respec: (d) => withSpec(d, { replicas: 3 }), respecWarns: true, retemplate: reimaged,
  },
  {
    resource: 'daemonsets',
    make: (name, plain) => object('apps/v1', 'DaemonSet', name, { spec: { selector: { matchLabels: labels }, template: template(undefined, plain) } }),
    // Upstream compares the template generation: a change elsewhere in the spec is not warned of.
    templatePath: 'spec.template', warnsOfName: false, respec: (ds) => withSpec(ds, { minReadySeconds: 5 }), respecWarns: false, retemplate: reimaged,
  },
  {
    resource: 'statefulsets',
    make: (name, plain) => object('apps/v1', 'StatefulSet', name, { spec: { selector: { matchLabels: labels }, serviceName: 'web', template: template(undefined, plain) } }),
    templatePath: 'spec.template', warnsOfName: false, respec: (sts) => withSpec(sts, { replicas: 3 }), respecWarns: true, retemplate: reimaged,
  },
  {
    resource: 'jobs',
    make: (name, plain) => object('batch/v1', 'Job', name, { spec: { template: template('Never', plain) } }),
    templatePath: 'spec.template', warnsOfName: true, respec: (job) => withSpec(job, { parallelism: 2 }), respecWarns: true,
    // A Job's template may not change: another spec change stands in.
    retemplate: (job) => withSpec(job, { activeDeadlineSeconds: 60 }),
  },
  {
    resource: 'cronjobs',
    make: (name, plain) => object('batch/v1', 'CronJob', name, { spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: template('OnFailure', plain) } } } }),
    templatePath: 'spec.jobTemplate.spec.template', warnsOfName: true, respec: (cj) => withSpec(cj, { schedule: '5 * * * *' }), respecWarns: true,
    retemplate: (cj) => withSpec(cj, { suspend: true }),
  },
];

for (const c of controllers) {
  const type = builtinType(c.resource);
  // A StatefulSet's name must be a DNS label already.
  const name = c.resource === 'statefulsets' ? 'web' : 'web.v1';
  const templateWarnings = [archWarning(c.templatePath)];

  test(`${c.resource}: a create is warned of ${c.warnsOfName ? 'its name and ' : ''}its template`, async () => {
    const { causes, warnings } = await createWarned(type, c.make(name));
    assert.deepEqual(causes, []);
    assert.deepEqual(warnings, c.warnsOfName && name !== 'web' ? [nameWarning, ...templateWarnings] : templateWarnings);
  });

  test(`${c.resource}: a valid one with a DNS label name is warned of nothing`, async () => {
    const { causes, warnings } = await createWarned(type, c.make('web', true));
    assert.deepEqual(causes, []);
    assert.deepEqual(warnings, []);
  });

  test(`${c.resource}: an update of the spec is warned of the template ${c.respecWarns ? 'again' : 'only when the template changed'}`, async () => {
    const { obj: created } = await createWarned(type, c.make(name));
    const respecced = await updateWarned(type, c.respec(created), created);
    assert.deepEqual(respecced.causes, []);
    assert.deepEqual(respecced.warnings, c.respecWarns ? templateWarnings : []);
    const retemplated = await updateWarned(type, c.retemplate(created), created);
    assert.deepEqual(retemplated.causes, []);
    assert.deepEqual(retemplated.warnings, c.retemplate(created) === created ? [] : templateWarnings);
  });

  test(`${c.resource}: an update that leaves the spec as it was is warned of nothing`, async () => {
    const { obj: created } = await createWarned(type, c.make(name));
    const relabelled = { ...created, metadata: { ...created.metadata, labels: { tier: 'fe' } } };
    const { causes, warnings } = await updateWarned(type, relabelled, created);
    assert.deepEqual(causes, []);
    assert.deepEqual(warnings, []);
  });
}

test('replicationcontrollers: an update is warned of the old template, as upstream passes the templates the wrong way round', async () => {
  const type = builtinType('replicationcontrollers');
  const make = (plain: boolean) => object('v1', 'ReplicationController', 'web', { spec: { selector: labels, template: template(undefined, plain) } });
  const { obj: deprecated } = await createWarned(type, make(false));
  const { obj: plain } = await createWarned(type, make(true));
  const fixed = { ...deprecated, spec: { ...specOf(deprecated), template: specOf(plain).template } };
  assert.deepEqual((await updateWarned(type, fixed, deprecated)).warnings, [archWarning('spec.template')]);
  const broken = { ...plain, spec: { ...specOf(plain), template: specOf(deprecated).template } };
  assert.deepEqual((await updateWarned(type, broken, plain)).warnings, []);
});

const fractionalStorage = 'fractional byte value "1500m" is invalid, must be an integer';
const historyWarning = 'spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended';

test("statefulsets: claim templates' fractional storage and a negative history limit, on every write; upstream's claim paths differ between create and update", async () => {
  const type = builtinType('statefulsets');
  const claim = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' }, limits: { storage: '1.5' } } } };
  const sts = object('apps/v1', 'StatefulSet', 'db', {
    spec: { selector: { matchLabels: labels }, serviceName: 'db', template: template(undefined, true), volumeClaimTemplates: [claim], revisionHistoryLimit: -1 },
  });
  const created = await createWarned(type, sts);
  assert.deepEqual(created.causes, []);
  assert.deepEqual(created.warnings, [`spec.volumeClaimTemplates[0].resources.limits[storage]: ${fractionalStorage}`, historyWarning]);
  const relabelled = { ...created.obj, metadata: { ...created.obj.metadata, labels: { tier: 'db' } } };
  assert.deepEqual((await updateWarned(type, relabelled, created.obj)).warnings, [`spec.volumeClaimTemplates[0].Spec.resources.limits[storage]: ${fractionalStorage}`, historyWarning]);
});

const indexedWarning = (path: string) =>
  `${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`;

test('jobs and cronjobs: an Indexed Job of more than 10^5 completions and 10^4 parallelism', async () => {
  const indexed = (parallelism: number) => ({ completionMode: 'Indexed', completions: 100_001, parallelism, template: template('Never', true) });
  const job = (parallelism: number) => object('batch/v1', 'Job', 'big', { spec: indexed(parallelism) });
  assert.deepEqual((await createWarned(builtinType('jobs'), job(10_001))).warnings, [indexedWarning('spec')]);
  assert.deepEqual((await createWarned(builtinType('jobs'), job(10_000))).warnings, []);
  const cronJob = object('batch/v1', 'CronJob', 'big', { spec: { schedule: '0 * * * *', jobTemplate: { spec: indexed(10_001) } } });
  assert.deepEqual((await createWarned(builtinType('cronjobs'), cronJob)).warnings, [indexedWarning('spec.jobTemplate.spec')]);
});

test('cronjobs: an update of a schedule that kept TZ= is warned of it, whether or not the spec changed', async () => {
  const type = builtinType('cronjobs');
  const { obj: created } = await createWarned(type, object('batch/v1', 'CronJob', 'nightly', { spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: template('OnFailure', true) } } } }));
  // Stored before validation refused TZ= in a schedule.
  const old = withSpec(created, { schedule: 'TZ=UTC 0 * * * *' });
  const relabelled = { ...old, metadata: { ...old.metadata, labels: { tier: 'batch' } } };
  const { causes, warnings } = await updateWarned(type, relabelled, old);
  assert.deepEqual(causes, []);
  assert.deepEqual(warnings, [
    'cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
  ]);
});
