// The Table columns of the built-in types, as kube-apiserver serves them: names, types,
// priorities and cell formats after kubernetes pkg/printers/internalversion/printers.go.
// The server prints "wide" (every column); kubectl hides priority > 0 unless `-o wide`.

import type { KubeObject, TableColumn, TableRowCondition } from '../../api/index.ts';
import { labelSelectorFromObject, labelSelectorString, type LabelSelectorObject } from '../../api/labels.ts';
import { ageColumn, column, humanDuration, nameColumn, timestampMs, translateTimestampSince } from '../table-columns.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { arrayAt, numberAt, objectAt, objectsAt, stringAt } from './object.ts';
import { joinHostPort } from '../../api/go-dial-error.ts';

export const containersColumn = (containersOf: (obj: KubeObject) => JsonObject[]) =>
  column('Containers', (obj) => containersOf(obj).map((c) => stringAt(c, 'name')).join(','), {
    priority: 1, description: 'Names of each container in the template.',
  });

export const imagesColumn = (containersOf: (obj: KubeObject) => JsonObject[]) =>
  column('Images', (obj) => containersOf(obj).map((c) => stringAt(c, 'image')).join(','), {
    priority: 1, description: 'Images referenced by each container in the template.',
  });

export const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** labels.FormatLabels: sorted `k=v` pairs, "<none>" when empty. */
export function formatLabels(set: unknown): string {
  if (!isObject(set)) return '<none>';
  const text = Object.keys(set).sort().map((k) => `${k}=${String(set[k])}`).join(',');
  return text === '' ? '<none>' : text;
}

/** metav1.LabelSelectorAsSelector(selector).String(), "<invalid>" when it does not parse. */
export function formatLabelSelector(selector: unknown): string {
  try {
    return labelSelectorString(labelSelectorFromObject(isObject(selector) ? (selector as LabelSelectorObject) : undefined));
  } catch {
    return '<invalid>';
  }
}

/** metav1.FormatLabelSelector, as kubectl's printers show a selector: "<none>" when empty or unset, "<error>" when it does not parse. */
export function formatSelector(selector: unknown): string {
  try {
    const text = labelSelectorString(labelSelectorFromObject(isObject(selector) ? (selector as LabelSelectorObject) : undefined));
    return text === '' ? '<none>' : text;
  } catch {
    return '<error>';
  }
}

// ---- pods ----

const podNodeUnreachableReason = 'NodeLost';

function isRestartableInitContainer(container: JsonObject | undefined): boolean {
  return container !== undefined && stringAt(container, 'restartPolicy') === 'Always';
}

function hasCondition(status: JsonObject | undefined, type: string): boolean {
  return objectsAt(status, 'conditions').some((c) => c.type === type && c.status === 'True');
}

/** The finishing time of a container's last termination (upstream's lastRestartDate). */
function lastTerminationMs(container: JsonObject): number | undefined {
  return timestampMs(objectAt(objectAt(container, 'lastState'), 'terminated')?.finishedAt);
}

const later = (a: number | undefined, b: number | undefined) => (b !== undefined && (a === undefined || b > a) ? b : a);

export interface PodSummary {
  /** "ready/total" containers, sidecars (restartable init containers) included. */
  ready: string;
  /** The aggregate status kubectl shows: the phase, a container's waiting or terminated reason, Init:…, Terminating. */
  status: string;
  /** Restart count, with the age of the last restart ("3 (5m ago)"). */
  restarts: string;
}

/** Upstream's printPod logic for the Ready, Status and Restarts cells. */
export function podSummary(pod: KubeObject, now: number): PodSummary {
  const spec = objectAt(pod, 'spec');
  const status = objectAt(pod, 'status');
  const phase = stringAt(status, 'phase');
  let reason = stringAt(status, 'reason') || phase;
  if (objectsAt(status, 'conditions').some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  let total = arrayAt(spec, 'containers').length;
  let readyContainers = 0;
  let restarts = 0;
  let restartableInitRestarts = 0;
  let lastRestart: number | undefined;
  let lastRestartableInitRestart: number | undefined;

  const initSpecs = objectsAt(spec, 'initContainers');
  const initByName = new Map(initSpecs.map((c) => [stringAt(c, 'name'), c]));
  total += initSpecs.filter(isRestartableInitContainer).length;

  let initializing = false;
  const initStatuses = objectsAt(status, 'initContainerStatuses');
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i]!;
    restarts += count(container.restartCount);
    lastRestart = later(lastRestart, lastTerminationMs(container));
    const restartable = isRestartableInitContainer(initByName.get(stringAt(container, 'name')));
    if (restartable) {
      restartableInitRestarts += count(container.restartCount);
      lastRestartableInitRestart = later(lastRestartableInitRestart, lastTerminationMs(container));
    }
    const state = objectAt(container, 'state');
    const terminated = objectAt(state, 'terminated');
    const waiting = objectAt(state, 'waiting');
    if (terminated !== undefined && count(terminated.exitCode) === 0) continue;
    if (restartable && container.started === true) {
      if (container.ready === true) readyContainers++;
      continue;
    }
    if (terminated !== undefined) {
      const why = stringAt(terminated, 'reason');
      const signal = count(terminated.signal);
      reason = why !== '' ? `Init:${why}` : signal !== 0 ? `Init:Signal:${signal}` : `Init:ExitCode:${count(terminated.exitCode)}`;
    } else if (waiting !== undefined && stringAt(waiting, 'reason') !== '' && stringAt(waiting, 'reason') !== 'PodInitializing') {
      reason = `Init:${stringAt(waiting, 'reason')}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status, 'Initialized')) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = objectsAt(status, 'containerStatuses');
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i]!;
      restarts += count(container.restartCount);
      lastRestart = later(lastRestart, lastTerminationMs(container));
      const state = objectAt(container, 'state');
      const terminated = objectAt(state, 'terminated');
      const waiting = objectAt(state, 'waiting');
      if (waiting !== undefined && stringAt(waiting, 'reason') !== '') {
        reason = stringAt(waiting, 'reason');
      } else if (terminated !== undefined && stringAt(terminated, 'reason') !== '') {
        reason = stringAt(terminated, 'reason');
      } else if (terminated !== undefined) {
        const signal = count(terminated.signal);
        reason = signal !== 0 ? `Signal:${signal}` : `ExitCode:${count(terminated.exitCode)}`;
      } else if (container.ready === true && objectAt(state, 'running') !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A completed container next to a running one: the pod as a whole still runs.
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata.deletionTimestamp !== undefined && stringAt(status, 'reason') === podNodeUnreachableReason) {
    reason = 'Unknown';
  } else if (pod.metadata.deletionTimestamp !== undefined && phase !== 'Succeeded' && phase !== 'Failed') {
    reason = 'Terminating';
  }

  const restartsText = restarts !== 0 && lastRestart !== undefined
    ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
    : String(restarts);
  return { ready: `${readyContainers}/${total}`, status: reason, restarts: restartsText };
}

function podIP(pod: KubeObject): string {
  const status = objectAt(pod, 'status');
  // v1's podIP wins over podIPs[0] when both are set (upstream's conversion to the internal type).
  return stringAt(status, 'podIP') || stringAt(objectsAt(status, 'podIPs')[0], 'ip') || '<none>';
}

function readinessGates(pod: KubeObject): string {
  const gates = objectsAt(objectAt(pod, 'spec'), 'readinessGates');
  if (gates.length === 0) return '<none>';
  const conditions = objectsAt(objectAt(pod, 'status'), 'conditions');
  const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

export const podColumns: TableColumn[] = [
  nameColumn,
  column('Ready', (pod, now) => podSummary(pod, now).ready, { description: 'The aggregate readiness state of this pod for accepting traffic.' }),
  column('Status', (pod, now) => podSummary(pod, now).status, { description: 'The aggregate status of the containers in this pod.' }),
  column('Restarts', (pod, now) => podSummary(pod, now).restarts, {
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
  }),
  ageColumn,
  column('IP', podIP, { priority: 1, description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.' }),
  column('Node', (pod) => stringAt(objectAt(pod, 'spec'), 'nodeName') || '<none>', {
    priority: 1, description: 'NodeName indicates in which node this pod is scheduled.',
  }),
  column('Nominated Node', (pod) => stringAt(objectAt(pod, 'status'), 'nominatedNodeName') || '<none>', {
    priority: 1, description: 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
  }),
  column('Readiness Gates', readinessGates, {
    priority: 1, description: 'If specified, all readiness gates will be evaluated for pod readiness.',
  }),
];

/** Finished pods are marked Completed, as upstream's printPod does. */
export function podRowConditions(pod: KubeObject): TableRowCondition[] | undefined {
  switch (stringAt(objectAt(pod, 'status'), 'phase')) {
    case 'Succeeded':
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    case 'Failed':
      return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    default:
      return undefined;
  }
}

// ---- deployments ----

export const templateContainers = (obj: KubeObject) => objectsAt(objectAt(objectAt(objectAt(obj, 'spec'), 'template'), 'spec'), 'containers');

export const deploymentColumns: TableColumn[] = [
  nameColumn,
  column('Ready', (d) => `${count(objectAt(d, 'status')?.readyReplicas)}/${numberAt(objectAt(d, 'spec'), 'replicas') ?? 1}`, {
    description: 'Number of the pod with ready state',
  }),
  column('Up-to-date', (d) => count(objectAt(d, 'status')?.updatedReplicas), {
    description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
  }),
  column('Available', (d) => count(objectAt(d, 'status')?.availableReplicas), {
    description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
  }),
  ageColumn,
  containersColumn(templateContainers),
  imagesColumn(templateContainers),
  column('Selector', (d) => formatLabelSelector(objectAt(d, 'spec')?.selector), {
    priority: 1, description: 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
  }),
];

// ---- services ----

/** Upstream's loadBalancerStatusStringer, wide (the server never clips it). */
function loadBalancerIngress(svc: KubeObject): string[] {
  const ingress = objectsAt(objectAt(objectAt(svc, 'status'), 'loadBalancer'), 'ingress');
  const found = new Set<string>();
  for (const i of ingress) {
    const value = stringAt(i, 'ip') || stringAt(i, 'hostname');
    if (value !== '') found.add(value);
  }
  return [...found].sort();
}

/** Upstream's getServiceExternalIP. */
function serviceExternalIP(svc: KubeObject): string {
  const spec = objectAt(svc, 'spec');
  const externalIPs = arrayAt(spec, 'externalIPs').filter((ip): ip is string => typeof ip === 'string');
  switch (stringAt(spec, 'type')) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(svc);
      if (externalIPs.length > 0) return [...lb, ...externalIPs].join(',');
      return lb.length > 0 ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return stringAt(spec, 'externalName');
    default:
      return '<unknown>';
  }
}

/** Upstream's makePortString: `port/protocol` or `port:nodePort/protocol`, "<none>" without ports. */
function formatServicePorts(svc: KubeObject): string {
  const text = objectsAt(objectAt(svc, 'spec'), 'ports').map((p) => {
    const nodePort = count(p.nodePort);
    const protocol = stringAt(p, 'protocol');
    return nodePort > 0 ? `${count(p.port)}:${nodePort}/${protocol}` : `${count(p.port)}/${protocol}`;
  }).join(',');
  return text === '' ? '<none>' : text;
}

function clusterIP(svc: KubeObject): string {
  const spec = objectAt(svc, 'spec');
  const first = arrayAt(spec, 'clusterIPs')[0];
  if (typeof first === 'string' && first !== '') return first;
  return stringAt(spec, 'clusterIP') || '<none>';
}

export const serviceColumns: TableColumn[] = [
  nameColumn,
  column('Type', (svc) => stringAt(objectAt(svc, 'spec'), 'type'), {
    description: 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.',
  }),
  column('Cluster-IP', clusterIP, { description: 'clusterIP is the IP address of the service and is usually assigned randomly.' }),
  column('External-IP', serviceExternalIP, {
    description: 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
  }),
  column('Port(s)', formatServicePorts, { description: 'The list of ports that are exposed by this service.' }),
  ageColumn,
  column('Selector', (svc) => formatLabels(objectAt(svc, 'spec')?.selector), {
    priority: 1, description: 'Route service traffic to pods with label keys and values matching this selector.',
  }),
];

// ---- configmaps, secrets, serviceaccounts, namespaces, leases ----

const keysOf = (v: unknown): number => (isObject(v) ? Object.keys(v).length : 0);

export const configMapColumns: TableColumn[] = [
  nameColumn,
  column('Data', (cm) => keysOf(cm.data) + keysOf(cm.binaryData), {
    description: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'.",
  }),
  ageColumn,
];

export const secretColumns: TableColumn[] = [
  nameColumn,
  column('Type', (s) => stringAt(s, 'type'), { description: 'Used to facilitate programmatic handling of secret data.' }),
  column('Data', (s) => keysOf(s.data), { description: "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'." }),
  ageColumn,
];

export const serviceAccountColumns: TableColumn[] = [
  nameColumn,
  column('Secrets', (sa) => arrayAt(sa, 'secrets').length, {
    description: 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
  }),
  ageColumn,
];

export const namespaceColumns: TableColumn[] = [
  nameColumn,
  column('Status', (ns) => stringAt(objectAt(ns, 'status'), 'phase'), { description: 'The status of the namespace' }),
  ageColumn,
];

export const leaseColumns: TableColumn[] = [
  nameColumn,
  column('Holder', (lease) => stringAt(objectAt(lease, 'spec'), 'holderIdentity'), {
    description: 'holderIdentity contains the identity of the holder of a current lease.',
  }),
  ageColumn,
];

// ---- nodes ----

/** Upstream's node Status cell: Ready / NotReady / Unknown, then SchedulingDisabled. */
function nodeStatus(node: KubeObject): string {
  const ready = objectsAt(objectAt(node, 'status'), 'conditions').filter((c) => c.type === 'Ready').at(-1);
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (objectAt(node, 'spec')?.unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Roles from `node-role.kubernetes.io/<role>` labels and the `kubernetes.io/role` label, sorted. */
function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') {
      roles.add(v);
    }
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

const nodeAddress = (type: string) => (node: KubeObject) =>
  stringAt(objectsAt(objectAt(node, 'status'), 'addresses').find((a) => a.type === type), 'address') || '<none>';

const nodeInfo = (field: string, unknown = '<unknown>') => (node: KubeObject) =>
  stringAt(objectAt(objectAt(node, 'status'), 'nodeInfo'), field) || unknown;

const nodeAddressesDescription = 'List of addresses reachable to the node. Queried from cloud provider, if available.';

export const nodeColumns: TableColumn[] = [
  nameColumn,
  column('Status', nodeStatus, { description: 'The status of the node' }),
  column('Roles', nodeRoles, { description: 'The roles of the node' }),
  ageColumn,
  column('Version', nodeInfo('kubeletVersion', ''), { description: 'Kubelet Version reported by the node.' }),
  column('Internal-IP', nodeAddress('InternalIP'), { priority: 1, description: nodeAddressesDescription }),
  column('External-IP', nodeAddress('ExternalIP'), { priority: 1, description: nodeAddressesDescription }),
  column('OS-Image', nodeInfo('osImage'), { priority: 1, description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).' }),
  column('Kernel-Version', nodeInfo('kernelVersion'), { priority: 1, description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)." }),
  column('Container-Runtime', nodeInfo('containerRuntimeVersion'), {
    priority: 1, description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
  }),
];

// ---- events ----

interface EventTimes {
  lastSeen: string;
  firstSeen: string;
  count: number;
}

/** Upstream's printEvent times: first/last seen fall back to eventTime, a series overrides both last seen and count. */
function eventTimes(event: KubeObject, now: number): EventTimes {
  const firstSeen = timestampMs(event.firstTimestamp) !== undefined
    ? translateTimestampSince(event.firstTimestamp, now)
    : translateTimestampSince(event.eventTime, now);
  let lastSeen = timestampMs(event.lastTimestamp) !== undefined ? translateTimestampSince(event.lastTimestamp, now) : firstSeen;
  let total = count(event.count);
  const series = objectAt(event, 'series');
  if (series !== undefined) {
    lastSeen = translateTimestampSince(series.lastObservedTime, now);
    total = count(series.count);
  } else if (total === 0) {
    // Singleton events of the events.k8s.io API have no count.
    total = 1;
  }
  return { lastSeen, firstSeen, count: total };
}

function eventObject(event: KubeObject): string {
  const involved = objectAt(event, 'involvedObject');
  const kind = stringAt(involved, 'kind').toLowerCase();
  const name = stringAt(involved, 'name');
  return name !== '' ? `${kind}/${name}` : kind;
}

/** formatEventSource: component (or reportingComponent: the core form of reportingController), then ", host" (or reportingInstance) when there is one. */
function eventSource(event: KubeObject): string {
  const source = objectAt(event, 'source');
  const component = stringAt(source, 'component') || stringAt(event, 'reportingComponent');
  const host = stringAt(source, 'host') || stringAt(event, 'reportingInstance');
  return host === '' ? component : `${component}, ${host}`;
}

export const eventColumns: TableColumn[] = [
  column('Last Seen', (e, now) => eventTimes(e, now).lastSeen, { description: 'The time at which the most recent occurrence of this event was recorded.' }),
  column('Type', (e) => stringAt(e, 'type'), { description: 'Type of this event (Normal, Warning), new types could be added in the future' }),
  column('Reason', (e) => stringAt(e, 'reason'), {
    description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  }),
  column('Object', eventObject, { description: 'The object that this event is about.' }),
  column('Subobject', (e) => stringAt(objectAt(e, 'involvedObject'), 'fieldPath'), {
    priority: 1, description: 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
  }),
  column('Source', eventSource, { priority: 1, description: 'The component reporting this event. Should be a short machine understandable string.' }),
  column('Message', (e) => stringAt(e, 'message').trim(), { description: 'A human-readable description of the status of this operation.' }),
  column('First Seen', (e, now) => eventTimes(e, now).firstSeen, {
    priority: 1, description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  }),
  column('Count', (e, now) => eventTimes(e, now).count, { priority: 1, description: 'The number of times this event has occurred.' }),
  { ...nameColumn, priority: 1 },
];

// ---- endpoints ----


/** Upstream's formatEndpoints: at most three `ip:port` entries, then "+ N more...". */
function formatEndpoints(endpoints: KubeObject): string {
  const subsets = objectsAt(endpoints, 'subsets');
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let total = 0;
  const add = (entry: string) => {
    if (list.length === max) more = true;
    else list.push(entry);
  };
  for (const subset of subsets) {
    const addresses = objectsAt(subset, 'addresses').map((a) => stringAt(a, 'ip'));
    const ports = objectsAt(subset, 'ports');
    if (ports.length === 0) {
      // Headless services may have no ports.
      total += addresses.length;
      for (const ip of addresses) add(ip);
      continue;
    }
    for (const port of ports) {
      total += addresses.length;
      for (const ip of addresses) add(joinHostPort(ip, count(port.port)));
    }
  }
  const text = list.join(',');
  return more ? `${text} + ${total - max} more...` : text;
}

export const endpointsColumns: TableColumn[] = [
  nameColumn,
  column('Endpoints', formatEndpoints, { description: 'The set of all endpoints is the union of all subsets.' }),
  ageColumn,
];

