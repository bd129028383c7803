// apps/v1 Deployment.

import type { Definitions } from '../types.ts';
import {
  CORE, bool, int32, int64, intOrString, labelSelector, listOf, mergeList, object, ref, str, strEnum, time,
  topLevel,
} from './build.ts';

const APPS = 'io.k8s.api.apps.v1.';
const appsV1 = { group: 'apps', version: 'v1' };

export const appsDefinitions: Definitions = {
  [APPS + 'Deployment']: topLevel(appsV1, 'Deployment', 'Declarative updates for a set of identical pods, through ReplicaSets.', {
    spec: ref(APPS + 'DeploymentSpec', 'The desired behaviour of the deployment.'),
    status: ref(APPS + 'DeploymentStatus', 'The most recently observed state of the deployment.'),
  }),
  [APPS + 'DeploymentList']: listOf(appsV1, 'Deployment', APPS + 'Deployment', 'The deployments.'),
  [APPS + 'DeploymentSpec']: object(
    'The desired behaviour of a deployment.',
    {
      minReadySeconds: int32('Seconds a new pod must be ready, without a container crashing, to count as available. Defaults to 0.'),
      paused: bool('Whether the deployment is paused.'),
      progressDeadlineSeconds: int32('Seconds without progress after which the deployment is reported as failed to progress. Defaults to 600.'),
      replicas: int32('Number of desired pods. Defaults to 1.'),
      revisionHistoryLimit: int32('How many old ReplicaSets to keep for rollback. Defaults to 10.'),
      selector: labelSelector('The pods the deployment manages; must match the template\'s labels. Immutable in apps/v1.'),
      strategy: {
        ...ref(APPS + 'DeploymentStrategy', 'How existing pods are replaced by new ones.'),
        'x-kubernetes-patch-strategy': 'retainKeys',
      },
      template: ref(CORE + 'PodTemplateSpec', 'The pods to create. Its restartPolicy may only be Always.'),
    },
    { required: ['selector', 'template'] },
  ),
  [APPS + 'DeploymentStrategy']: object('How a deployment replaces pods.', {
    rollingUpdate: ref(APPS + 'RollingUpdateDeployment', 'Parameters of a rolling update; only with type RollingUpdate.'),
    type: strEnum(['Recreate', 'RollingUpdate'], 'Recreate, or RollingUpdate (the default).'),
  }),
  [APPS + 'RollingUpdateDeployment']: object('Parameters of a rolling update.', {
    maxSurge: intOrString('How many pods, or what percentage (rounded up), may exist above the desired count during the update. Defaults to 25%.'),
    maxUnavailable: intOrString('How many pods, or what percentage (rounded down), may be unavailable during the update. Defaults to 25%.'),
  }),
  [APPS + 'DeploymentStatus']: object('The observed state of a deployment.', {
    availableReplicas: int32('Pods available (ready for minReadySeconds).'),
    collisionCount: int32('Counts hash collisions of the template, used to name new ReplicaSets.'),
    conditions: mergeList(ref(APPS + 'DeploymentCondition'), 'type', 'The latest observations of the deployment\'s state.'),
    observedGeneration: int64('The generation the controller last observed.'),
    readyReplicas: int32('Pods with a Ready condition.'),
    replicas: int32('Non-terminating pods targeted by the deployment.'),
    terminatingReplicas: int32('Pods of the deployment that are terminating.'),
    unavailableReplicas: int32('Pods still needed for the deployment to be fully available.'),
    updatedReplicas: int32('Non-terminating pods running the desired template.'),
  }),
  [APPS + 'DeploymentCondition']: object(
    'One aspect of a deployment\'s state.',
    {
      lastTransitionTime: time('When the status last changed.'),
      lastUpdateTime: time('When the condition was last updated.'),
      message: str('Human-readable details.'),
      reason: str('CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('Available, Progressing or ReplicaFailure.'),
    },
    { required: ['type', 'status'] },
  ),
};
