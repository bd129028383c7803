// API Priority and Fairness' bootstrap configuration, as upstream's
// apiserver/pkg/apis/flowcontrol/bootstrap defines it: the mandatory objects (`exempt` and
// `catch-all`) and the suggested ones every kube-apiserver makes (levels for the system,
// node heartbeats, leader election, workloads high and low, and everyone else; the
// schemas that route to them). bootstrap.ts makes those that are missing.
import type { KubeObject } from '../api/index.ts';

const apiVersion = 'flowcontrol.apiserver.k8s.io/v1';
/** Who makes and keeps the configuration objects (upstream's ensurer's field manager). */
export const flowControlProducer = 'api-priority-and-fairness-config-producer-v1';
/** Who writes FlowSchemas' Dangling condition (upstream's controller's field manager). */
export const flowControlConsumer = 'api-priority-and-fairness-config-consumer-v1';
/** The annotation that lets the server bring an object's spec back to its default. */
export const autoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';

type Subject = Record<string, unknown>;
type Rules = { subjects: Subject[]; resourceRules?: object[]; nonResourceRules?: object[] };

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): object {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces: ['*'] };
}

const everyResource = resourceRule(['*'], ['*'], ['*'], true);
const everyURL = { verbs: ['*'], nonResourceURLs: ['*'] };
/** Everything, for these subjects. */
const everything = (subjects: Subject[]): Rules => ({ subjects, resourceRules: [everyResource], nonResourceRules: [everyURL] });

function flowSchema(name: string, level: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, rules: Rules): KubeObject {
  return {
    apiVersion, kind: 'FlowSchema',
    metadata: { name, annotations: { [autoUpdateAnnotation]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence,
      ...(distinguisher !== undefined ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rules],
    },
  };
}

function priorityLevel(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { [autoUpdateAnnotation]: 'true' } }, spec };
}

function queuing(nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number): Record<string, unknown> {
  return {
    type: 'Limited',
    limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  };
}

export const mandatoryPriorityLevels: KubeObject[] = [
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
];

export const mandatoryFlowSchemas: KubeObject[] = [
  flowSchema('exempt', 'exempt', 1, undefined, everything(groups('system:masters'))),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

export const suggestedPriorityLevels: KubeObject[] = [
  priorityLevel('system', queuing(30, 33, 64, 6)),
  priorityLevel('node-high', queuing(40, 25, 64, 6)),
  priorityLevel('leader-election', queuing(10, 0, 16, 4)),
  priorityLevel('workload-high', queuing(40, 50, 128, 6)),
  priorityLevel('workload-low', queuing(100, 90, 128, 6)),
  priorityLevel('global-default', queuing(20, 50, 128, 6)),
];

const leases = resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false);

export const suggestedFlowSchemas: KubeObject[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('probes', 'exempt', 2, undefined, {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')],
    resourceRules: [leases],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], false), leases],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-controller-manager'))),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts('*'))),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

/**
 * The Dangling condition upstream's priority and fairness controller keeps on a FlowSchema:
 * whether the priority level it names exists.
 */
export function danglingCondition(level: string, exists: boolean, now: string): Record<string, string> {
  return exists
    ? { type: 'Dangling', status: 'False', lastTransitionTime: now, reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists` }
    : { type: 'Dangling', status: 'True', lastTransitionTime: now, reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object` };
}

/** The level a FlowSchema names. */
export function levelOf(schema: KubeObject): string {
  return (schema.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)?.priorityLevelConfiguration?.name ?? '';
}
