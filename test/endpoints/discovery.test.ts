// storageVersionHash as kube-apiserver computes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storageVersionHash } from '../../src/endpoints/discovery.ts';

// Values read from kube-apiserver's legacy discovery answers (/api/v1, /apis/apps/v1,
// /apis/batch/v1, /apis/autoscaling/v1): the storage group, version and kind of each
// resource, and the hash the server gave for it.
const cases: [group: string, version: string, kind: string, hash: string][] = [
  ['', 'v1', 'ConfigMap', 'qFsyl6wFWjQ='],
  ['', 'v1', 'Endpoints', 'fWeeMqaN/OA='],
  ['', 'v1', 'Event', 'r2yiGXH7wu8='],
  ['', 'v1', 'LimitRange', 'EBKMFVe6cwo='],
  ['', 'v1', 'Namespace', 'Q3oi5N2YM8M='],
  ['', 'v1', 'Node', 'XwShjMxG9Fs='],
  ['', 'v1', 'PersistentVolumeClaim', 'QWTyNDq0dC4='],
  ['', 'v1', 'PersistentVolume', 'HN/zwEC+JgM='],
  ['', 'v1', 'Pod', 'xPOwRZ+Yhw8='],
  ['', 'v1', 'PodTemplate', 'LIXB2x4IFpk='],
  ['', 'v1', 'ReplicationController', 'Jond2If31h0='],
  ['apps', 'v1', 'ControllerRevision', '85nkx63pcBU='],
  ['apps', 'v1', 'DaemonSet', 'dd7pWHUlMKQ='],
  ['apps', 'v1', 'Deployment', '8aSe+NMegvE='],
  ['apps', 'v1', 'ReplicaSet', 'P1RzHs8/mWQ='],
  ['apps', 'v1', 'StatefulSet', 'H+vl74LkKdo='],
  ['batch', 'v1', 'CronJob', 'sd5LIXh4Fjs='],
  ['batch', 'v1', 'Job', 'mudhfqk/qZY='],
  ['autoscaling', 'v1', 'HorizontalPodAutoscaler', 'oQlkt7f5j/A='],
];

for (const [group, version, kind, hash] of cases) {
  test(`storageVersionHash of ${group}/${version}/${kind} is ${hash}`, () => {
    assert.equal(storageVersionHash(group, version, kind), hash);
  });
}
