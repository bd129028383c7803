// rest.BeforeDelete's corners as upstream: a shortened grace period never moves deletionTimestamp into the past, and the namespace and CRD registries check preconditions in their own words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject, type StatusError } from '../../src/api/index.ts';
import { rfc3339Seconds } from '../../src/api/time.ts';
import { customResourceDefinitionsType } from '../../src/registry/crd/customresourcedefinitions.ts';
import { beforeDelete, type GracefulDecision } from '../../src/registry/deletion.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { builtinType } from '../helpers/store.ts';

/** A whole second, as deletionTimestamps are stored. */
const now = Date.parse('2030-01-01T00:10:00Z');
const at = (secondsFromNow: number) => rfc3339Seconds(now + secondsFromNow * 1000);

function deletingPod(deletionTimestamp: string, deletionGracePeriodSeconds: number): KubeObject {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '5', deletionTimestamp, deletionGracePeriodSeconds },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Running' },
  };
}

interface ShortenCase {
  name: string;
  /** When the pod is due, in seconds from now, and the grace it was given. */
  due: number;
  recorded: number;
  grace: number;
  /** What the delete leaves on the pod. */
  deletionTimestamp: string;
  deletionGracePeriodSeconds: number;
  decision: GracefulDecision;
}

const shortenCases: ShortenCase[] = [
  {
    name: 'a shorter grace still ahead moves deletionTimestamp back by the difference',
    due: 100, recorded: 30, grace: 10, deletionTimestamp: at(80), deletionGracePeriodSeconds: 10,
    decision: { graceful: true, pending: false, gracePeriodSeconds: 10 },
  },
  {
    name: 'a shorter grace already run out leaves now and 1 second (was: a deletionTimestamp 120 seconds ago)',
    due: -100, recorded: 30, grace: 10, deletionTimestamp: at(0), deletionGracePeriodSeconds: 1,
    decision: { graceful: true, pending: false, gracePeriodSeconds: 10 },
  },
  {
    name: 'grace 0 when the grace ran out: now and 0, deleted at once',
    due: -100, recorded: 30, grace: 0, deletionTimestamp: at(0), deletionGracePeriodSeconds: 0,
    decision: { graceful: true, pending: false, gracePeriodSeconds: 0 },
  },
  {
    name: 'a negative grace counts as 1 second, and not into the past either',
    due: 5, recorded: 30, grace: -7, deletionTimestamp: at(0), deletionGracePeriodSeconds: 1,
    decision: { graceful: true, pending: false, gracePeriodSeconds: 1 },
  },
  {
    name: 'landing on now exactly is not the past: kept as asked',
    due: 20, recorded: 30, grace: 10, deletionTimestamp: at(0), deletionGracePeriodSeconds: 10,
    decision: { graceful: true, pending: false, gracePeriodSeconds: 10 },
  },
];

for (const c of shortenCases) {
  test(`shortening a pod's grace period: ${c.name}`, () => {
    const pod = deletingPod(at(c.due), c.recorded);
    const decision = beforeDelete(builtinType('pods'), pod, { gracePeriodSeconds: c.grace }, now);
    assert.deepEqual(decision, c.decision);
    assert.equal(pod.metadata.deletionTimestamp, c.deletionTimestamp);
    assert.equal(pod.metadata.deletionGracePeriodSeconds, c.deletionGracePeriodSeconds);
  });
}

function failure(run: () => unknown): StatusError {
  try {
    run();
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  assert.fail('expected an error');
}

interface PreconditionCase {
  name: string;
  type: () => ResourceType;
  preconditions: { uid?: string; resourceVersion?: string };
  message: string;
  details: Record<string, string>;
}

const preconditionCases: PreconditionCase[] = [
  {
    name: 'namespaces: a uid that does not hold, in the namespace registry\'s words on its resource',
    type: () => builtinType('namespaces'), preconditions: { uid: 'other' },
    message: 'Operation cannot be fulfilled on namespaces "x": Precondition failed: UID in precondition: other, UID in object meta: u',
    details: { name: 'x', kind: 'namespaces' },
  },
  {
    name: 'namespaces: a resourceVersion that does not hold',
    type: () => builtinType('namespaces'), preconditions: { resourceVersion: '1' },
    message: 'Operation cannot be fulfilled on namespaces "x": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 5',
    details: { name: 'x', kind: 'namespaces' },
  },
  {
    name: 'namespaces: the uid is checked first',
    type: () => builtinType('namespaces'), preconditions: { uid: 'other', resourceVersion: '1' },
    message: 'Operation cannot be fulfilled on namespaces "x": Precondition failed: UID in precondition: other, UID in object meta: u',
    details: { name: 'x', kind: 'namespaces' },
  },
  {
    name: 'CRDs: a uid that does not hold, in the CRD registry\'s words',
    type: customResourceDefinitionsType, preconditions: { uid: 'other' },
    message: 'Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io "x": Precondition failed: UID in precondition: other, UID in object meta: u',
    details: { name: 'x', group: 'apiextensions.k8s.io', kind: 'customresourcedefinitions' },
  },
  {
    name: 'CRDs: a resourceVersion that does not hold',
    type: customResourceDefinitionsType, preconditions: { resourceVersion: '1' },
    message: 'Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io "x": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 5',
    details: { name: 'x', group: 'apiextensions.k8s.io', kind: 'customresourcedefinitions' },
  },
  {
    name: 'other types: the generic store\'s words, on the kind',
    type: () => builtinType('configmaps'), preconditions: { resourceVersion: '1' },
    message: 'Operation cannot be fulfilled on ConfigMap "x": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (5). The object might have been modified',
    details: { name: 'x', kind: 'ConfigMap' },
  },
];

for (const c of preconditionCases) {
  test(`delete preconditions: ${c.name}`, () => {
    const obj: KubeObject = { metadata: { name: 'x', uid: 'u', resourceVersion: '5' } };
    const err = failure(() => beforeDelete(c.type(), obj, { preconditions: c.preconditions }, now));
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, c.message);
    assert.deepEqual({ ...err.details }, c.details);
  });
}

test('delete preconditions that hold pass for namespaces and CRDs alike', () => {
  for (const type of [builtinType('namespaces'), customResourceDefinitionsType()]) {
    const obj: KubeObject = { metadata: { name: 'x', uid: 'u', resourceVersion: '5' } };
    assert.deepEqual(beforeDelete(type, obj, { preconditions: { uid: 'u', resourceVersion: '5' } }, now), { graceful: false, pending: false });
  }
});
