// A pod template's deletion cost, as upstream's GetValidationOptionsFromPodTemplate ratchets
// it: a new template's cost must be a 32-bit integer, and so must an updated one's, unless
// the template it replaces already held an invalid cost (AllowInvalidPodDeletionCost).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import type { JsonObject } from '../../../src/api/json.ts';
import { builtinType, storeCreate, storeUpdate } from '../../helpers/store.ts';

const costAnnotation = 'controller.kubernetes.io/pod-deletion-cost';
const labels = { app: 'web' };
const container = { name: 'app', image: 'nginx:1' };
const template = (restartPolicy = 'Always') => ({ metadata: { labels }, spec: { restartPolicy, containers: [container] } });
const jobSpec = () => ({ template: template('Never') });

interface Kind {
  resource: string;
  obj: KubeObject;
  /** Where the pod template sits in the object. */
  at: string[];
  /** How often an update validates the spec: upstream's ReplicaSets, ReplicationControllers and DaemonSets do it twice (their causes repeat). */
  updateChecks?: number;
}

const meta = { name: 'web', namespace: 'default' };
const kinds: Kind[] = [
  { resource: 'deployments', at: ['spec', 'template'], obj: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { selector: { matchLabels: labels }, template: template() } } },
  { resource: 'replicasets', at: ['spec', 'template'], updateChecks: 2, obj: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta, spec: { selector: { matchLabels: labels }, template: template() } } },
  { resource: 'replicationcontrollers', at: ['spec', 'template'], updateChecks: 2, obj: { apiVersion: 'v1', kind: 'ReplicationController', metadata: meta, spec: { selector: labels, template: template() } } },
  { resource: 'daemonsets', at: ['spec', 'template'], updateChecks: 2, obj: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta, spec: { selector: { matchLabels: labels }, template: template() } } },
  { resource: 'statefulsets', at: ['spec', 'template'], obj: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta, spec: { selector: { matchLabels: labels }, template: template() } } },
  { resource: 'podtemplates', at: ['template'], obj: { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta, template: template() } as KubeObject },
  { resource: 'jobs', at: ['spec', 'template'], obj: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: jobSpec() } },
  { resource: 'cronjobs', at: ['spec', 'jobTemplate', 'spec', 'template'], obj: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: jobSpec() } } } },
];

/** `obj` with its template's deletion cost set to `cost`, other labels on the object when `mark` is given. */
function withCost(kind: Kind, obj: KubeObject, cost: string, mark?: string): KubeObject {
  const copy = structuredClone(obj);
  let t = copy as unknown as JsonObject;
  for (const k of kind.at) t = t[k] as JsonObject;
  const templateMeta = t.metadata as JsonObject;
  templateMeta.annotations = { ...(templateMeta.annotations as object), [costAnnotation]: cost };
  if (mark !== undefined) copy.metadata = { ...copy.metadata, labels: { ...copy.metadata.labels, mark } };
  return copy;
}

const show = (c: StatusCause) => `${c.reason} ${c.field}: ${c.message}`;
const costCauses = (causes: StatusCause[]) => causes.filter((c) => c.field?.endsWith(`[${costAnnotation}]`)).map(show);
const costError = (kind: Kind, cost: string) => `FieldValueInvalid ${[...kind.at, 'annotations'].join('.')}[${costAnnotation}]: Invalid value: "${cost}": must be a 32bit integer`;

for (const kind of kinds) {
  const type = builtinType(kind.resource);

  test(`a new ${kind.obj.kind}'s template may not hold an invalid deletion cost`, async () => {
    assert.deepEqual((await storeCreate(type, withCost(kind, kind.obj, '7'))).causes.map(show), []);
    assert.deepEqual(costCauses((await storeCreate(type, withCost(kind, kind.obj, 'many'))).causes), [costError(kind, 'many')]);
  });

  test(`an update of a ${kind.obj.kind} keeps the invalid deletion cost its template held, but may not make a valid one invalid`, async () => {
    const created = await storeCreate(type, kind.obj);
    assert.deepEqual(created.causes.map(show), []);
    // As stored by an older server, which took any cost.
    const invalidBefore = withCost(kind, created.obj, 'many');
    assert.deepEqual((await storeUpdate(type, withCost(kind, invalidBefore, 'many', 'x'), invalidBefore)).causes.map(show), []);
    const validBefore = withCost(kind, created.obj, '1');
    const turnedInvalid = (await storeUpdate(type, withCost(kind, validBefore, 'many'), validBefore)).causes;
    assert.deepEqual(costCauses(turnedInvalid), Array(kind.updateChecks ?? 1).fill(costError(kind, 'many')));
  });
}
