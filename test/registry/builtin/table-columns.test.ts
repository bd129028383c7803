import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, TableColumn } from '../../../src/api/index.ts';
import { builtinResourceTypes } from '../../../src/registry/builtin/index.ts';
import { podRowConditions, podSummary } from '../../../src/registry/builtin/table-columns.ts';

const now = Date.parse('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:55:00Z';

function columnsOf(resource: string): TableColumn[] {
  const type = builtinResourceTypes().find((t) => t.resource === resource);
  assert.ok(type?.tableColumns, resource);
  return type.tableColumns;
}

/** The row of one object, as `{column name: cell}`. */
function row(resource: string, obj: Partial<KubeObject>): Record<string, unknown> {
  const o = { metadata: { name: 'x', creationTimestamp: created }, ...obj } as KubeObject;
  return Object.fromEntries(columnsOf(resource).map((c) => [c.name, c.cell(o, now)]));
}

describe('columns as upstream printers.go defines them (name, type, priority)', () => {
  const expected: Record<string, string[]> = {
    pods: ['Name string 0 name', 'Ready string 0', 'Status string 0', 'Restarts string 0', 'Age string 0', 'IP string 1', 'Node string 1', 'Nominated Node string 1', 'Readiness Gates string 1'],
    deployments: ['Name string 0 name', 'Ready string 0', 'Up-to-date string 0', 'Available string 0', 'Age string 0', 'Containers string 1', 'Images string 1', 'Selector string 1'],
    services: ['Name string 0 name', 'Type string 0', 'Cluster-IP string 0', 'External-IP string 0', 'Port(s) string 0', 'Age string 0', 'Selector string 1'],
    configmaps: ['Name string 0 name', 'Data string 0', 'Age string 0'],
    secrets: ['Name string 0 name', 'Type string 0', 'Data string 0', 'Age string 0'],
    namespaces: ['Name string 0 name', 'Status string 0', 'Age string 0'],
    nodes: ['Name string 0 name', 'Status string 0', 'Roles string 0', 'Age string 0', 'Version string 0', 'Internal-IP string 1', 'External-IP string 1', 'OS-Image string 1', 'Kernel-Version string 1', 'Container-Runtime string 1'],
    events: ['Last Seen string 0', 'Type string 0', 'Reason string 0', 'Object string 0', 'Subobject string 1', 'Source string 1', 'Message string 0', 'First Seen string 1', 'Count string 1', 'Name string 1 name'],
    endpoints: ['Name string 0 name', 'Endpoints string 0', 'Age string 0'],
    serviceaccounts: ['Name string 0 name', 'Secrets string 0', 'Age string 0'],
    leases: ['Name string 0 name', 'Holder string 0', 'Age string 0'],
  };
  for (const [resource, columns] of Object.entries(expected)) {
    test(resource, () => {
      assert.deepEqual(columnsOf(resource).map((c) => `${c.name} ${c.type} ${c.priority ?? 0}${c.format ? ` ${c.format}` : ''}`), columns);
    });
  }
});

const running = (name: string, ready = true, restartCount = 0, extra: Record<string, unknown> = {}) => ({
  name, ready, restartCount, state: { running: { startedAt: created } }, ...extra,
});
const waiting = (name: string, reason: string, restartCount = 0) => ({ name, ready: false, restartCount, state: { waiting: { reason } } });
const terminated = (name: string, t: Record<string, unknown>, restartCount = 0) => ({ name, ready: false, restartCount, state: { terminated: t } });
const containers = (...names: string[]) => names.map((name) => ({ name, image: 'img' }));

describe('pod Ready, Status and Restarts (upstream printPod)', () => {
  const cases: { name: string; pod: Partial<KubeObject>; ready: string; status: string; restarts: string }[] = [
    { name: 'a new pod is Pending', pod: { spec: { containers: containers('a') }, status: { phase: 'Pending' } }, ready: '0/1', status: 'Pending', restarts: '0' },
    { name: 'no status at all', pod: { spec: { containers: containers('a') } }, ready: '0/1', status: '', restarts: '0' },
    {
      name: 'running and ready',
      pod: { spec: { containers: containers('a', 'b') }, status: { phase: 'Running', containerStatuses: [running('a'), running('b')] } },
      ready: '2/2', status: 'Running', restarts: '0',
    },
    {
      name: 'a waiting container gives its reason',
      pod: { spec: { containers: containers('a', 'b') }, status: { phase: 'Running', containerStatuses: [running('a'), waiting('b', 'CrashLoopBackOff', 4)] } },
      ready: '1/2', status: 'CrashLoopBackOff', restarts: '4',
    },
    {
      name: 'restarts show the age of the last termination',
      pod: {
        spec: { containers: containers('a') },
        status: { phase: 'Running', containerStatuses: [running('a', true, 3, { lastState: { terminated: { exitCode: 1, finishedAt: '2024-05-01T11:58:00Z' } } })] },
      },
      ready: '1/1', status: 'Running', restarts: '3 (2m ago)',
    },
    {
      name: 'a terminated container without reason shows its exit code',
      pod: { spec: { containers: containers('a') }, status: { phase: 'Running', containerStatuses: [terminated('a', { exitCode: 2 })] } },
      ready: '0/1', status: 'ExitCode:2', restarts: '0',
    },
    {
      name: 'a signal wins over the exit code',
      pod: { spec: { containers: containers('a') }, status: { phase: 'Running', containerStatuses: [terminated('a', { exitCode: 137, signal: 9 })] } },
      ready: '0/1', status: 'Signal:9', restarts: '0',
    },
    {
      name: 'a completed pod',
      pod: { spec: { containers: containers('a') }, status: { phase: 'Succeeded', containerStatuses: [terminated('a', { exitCode: 0, reason: 'Completed' })] } },
      ready: '0/1', status: 'Completed', restarts: '0',
    },
    {
      name: 'Completed next to a running container is Running when the pod is Ready',
      pod: {
        spec: { containers: containers('a', 'b') },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [terminated('a', { exitCode: 0, reason: 'Completed' }), running('b')] },
      },
      ready: '1/2', status: 'Running', restarts: '0',
    },
    {
      name: 'Completed next to a running container is NotReady otherwise',
      pod: {
        spec: { containers: containers('a', 'b') },
        status: { phase: 'Running', containerStatuses: [terminated('a', { exitCode: 0, reason: 'Completed' }), running('b')] },
      },
      ready: '1/2', status: 'NotReady', restarts: '0',
    },
    {
      name: 'an init container not yet done: Init:i/n',
      pod: {
        spec: { initContainers: containers('i1', 'i2'), containers: containers('a') },
        status: { phase: 'Pending', initContainerStatuses: [terminated('i1', { exitCode: 0 }), running('i2', false)], containerStatuses: [waiting('a', 'PodInitializing')] },
      },
      ready: '0/1', status: 'Init:1/2', restarts: '0',
    },
    {
      name: 'a failed init container: Init:reason',
      pod: {
        spec: { initContainers: containers('i1'), containers: containers('a') },
        status: { phase: 'Pending', initContainerStatuses: [terminated('i1', { exitCode: 1, reason: 'Error' }, 2)] },
      },
      ready: '0/1', status: 'Init:Error', restarts: '2',
    },
    {
      name: 'a failed init container without reason: Init:ExitCode',
      pod: { spec: { initContainers: containers('i1'), containers: containers('a') }, status: { phase: 'Pending', initContainerStatuses: [terminated('i1', { exitCode: 3 })] } },
      ready: '0/1', status: 'Init:ExitCode:3', restarts: '0',
    },
    {
      name: 'a waiting init container: Init:reason',
      pod: { spec: { initContainers: containers('i1'), containers: containers('a') }, status: { phase: 'Pending', initContainerStatuses: [waiting('i1', 'ImagePullBackOff')] } },
      ready: '0/1', status: 'Init:ImagePullBackOff', restarts: '0',
    },
    {
      name: 'a started sidecar counts as a container',
      pod: {
        spec: { initContainers: [{ name: 's', image: 'img', restartPolicy: 'Always' }], containers: containers('a') },
        status: {
          phase: 'Running',
          conditions: [{ type: 'Initialized', status: 'True' }],
          initContainerStatuses: [running('s', true, 1, { started: true })],
          containerStatuses: [running('a')],
        },
      },
      ready: '2/2', status: 'Running', restarts: '1',
    },
    {
      name: 'a gated pod is SchedulingGated',
      pod: { spec: { containers: containers('a') }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } },
      ready: '0/1', status: 'SchedulingGated', restarts: '0',
    },
    {
      name: 'a pod being deleted is Terminating',
      pod: { metadata: { name: 'x', creationTimestamp: created, deletionTimestamp: created }, spec: { containers: containers('a') }, status: { phase: 'Running', containerStatuses: [running('a')] } },
      ready: '1/1', status: 'Terminating', restarts: '0',
    },
    {
      name: 'a finished pod being deleted keeps its status',
      pod: { metadata: { name: 'x', creationTimestamp: created, deletionTimestamp: created }, spec: { containers: containers('a') }, status: { phase: 'Succeeded' } },
      ready: '0/1', status: 'Succeeded', restarts: '0',
    },
    {
      name: 'a pod being deleted on a lost node is Unknown',
      pod: { metadata: { name: 'x', creationTimestamp: created, deletionTimestamp: created }, spec: { containers: containers('a') }, status: { phase: 'Running', reason: 'NodeLost' } },
      ready: '0/1', status: 'Unknown', restarts: '0',
    },
    {
      name: 'status.reason wins over the phase',
      pod: { spec: { containers: containers('a') }, status: { phase: 'Failed', reason: 'Evicted' } },
      ready: '0/1', status: 'Evicted', restarts: '0',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const pod = { metadata: { name: 'x', creationTimestamp: created }, ...c.pod } as KubeObject;
      assert.deepEqual(podSummary(pod, now), { ready: c.ready, status: c.status, restarts: c.restarts });
      const cells = row('pods', pod);
      assert.deepEqual([cells.Ready, cells.Status, cells.Restarts, cells.Age], [c.ready, c.status, c.restarts, '5m']);
    });
  }

  test('wide columns: IP (podIP first), node, nominated node, readiness gates', () => {
    assert.deepEqual(row('pods', { spec: { containers: containers('a') }, status: {} }), {
      Name: 'x', Ready: '0/1', Status: '', Restarts: '0', Age: '5m', IP: '<none>', Node: '<none>', 'Nominated Node': '<none>', 'Readiness Gates': '<none>',
    });
    const cells = row('pods', {
      spec: { containers: containers('a'), nodeName: 'n1', readinessGates: [{ conditionType: 'a.io/x' }, { conditionType: 'a.io/y' }] },
      status: { podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }], nominatedNodeName: 'n2', conditions: [{ type: 'a.io/x', status: 'True' }, { type: 'a.io/y', status: 'False' }] },
    });
    assert.deepEqual([cells.IP, cells.Node, cells['Nominated Node'], cells['Readiness Gates']], ['10.0.0.5', 'n1', 'n2', '1/2']);
    assert.equal(row('pods', { spec: { containers: [] }, status: { podIPs: [{ ip: 'fd00::1' }] } }).IP, 'fd00::1');
  });

  test('finished pods carry a Completed row condition', () => {
    assert.deepEqual(podRowConditions({ metadata: {}, status: { phase: 'Succeeded' } }), [
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    assert.equal(podRowConditions({ metadata: {}, status: { phase: 'Running' } }), undefined);
  });
});

describe('deployment cells', () => {
  test('ready/desired, up-to-date, available, containers, images, selector', () => {
    const cells = row('deployments', {
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
        template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'log', image: 'busybox' }] } },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 },
    });
    assert.deepEqual(cells, {
      Name: 'x', Ready: '2/3', 'Up-to-date': 3, Available: 1, Age: '5m',
      Containers: 'web,log', Images: 'nginx:1,busybox', Selector: 'app=web,tier in (a,b)',
    });
  });

  test('no status yet: zeros', () => {
    const cells = row('deployments', { spec: { replicas: 1, selector: {}, template: { spec: { containers: [] } } } });
    assert.deepEqual([cells.Ready, cells['Up-to-date'], cells.Available, cells.Selector], ['0/1', 0, 0, '']);
  });
});

describe('service cells', () => {
  const cases: { name: string; spec: Record<string, unknown>; status?: Record<string, unknown>; cells: Record<string, unknown> }[] = [
    {
      name: 'ClusterIP',
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }], selector: { k8s: 'dns', app: 'x' } },
      cells: { Type: 'ClusterIP', 'Cluster-IP': '10.96.0.10', 'External-IP': '<none>', 'Port(s)': '53/UDP,53/TCP', Selector: 'app=x,k8s=dns' },
    },
    {
      name: 'headless without ports or selector',
      spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'] },
      cells: { Type: 'ClusterIP', 'Cluster-IP': 'None', 'External-IP': '<none>', 'Port(s)': '<none>', Selector: '<none>' },
    },
    {
      name: 'NodePort with external IPs',
      spec: { type: 'NodePort', clusterIPs: ['10.96.0.11'], externalIPs: ['1.2.3.4', '5.6.7.8'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] },
      cells: { Type: 'NodePort', 'Cluster-IP': '10.96.0.11', 'External-IP': '1.2.3.4,5.6.7.8', 'Port(s)': '80:30080/TCP' },
    },
    {
      name: 'LoadBalancer still pending',
      spec: { type: 'LoadBalancer', clusterIPs: ['10.96.0.12'], ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }] },
      cells: { 'External-IP': '<pending>', 'Port(s)': '443:31443/TCP' },
    },
    {
      name: 'LoadBalancer with ingress (sorted, unique, never clipped by the server)',
      spec: { type: 'LoadBalancer', clusterIPs: ['10.96.0.12'], externalIPs: ['9.9.9.9'] },
      status: { loadBalancer: { ingress: [{ hostname: 'a-very-long-load-balancer-name.example.com' }, { ip: '1.1.1.1' }, { ip: '1.1.1.1' }] } },
      cells: { 'External-IP': '1.1.1.1,a-very-long-load-balancer-name.example.com,9.9.9.9' },
    },
    {
      name: 'ExternalName',
      spec: { type: 'ExternalName', externalName: 'db.example.com' },
      cells: { Type: 'ExternalName', 'Cluster-IP': '<none>', 'External-IP': 'db.example.com' },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const cells = row('services', { spec: c.spec, status: c.status ?? {} });
      for (const [k, v] of Object.entries(c.cells)) assert.deepEqual(cells[k], v, k);
    });
  }
});

describe('cells of the other types', () => {
  test('ConfigMap Data counts data and binaryData keys', () => {
    assert.deepEqual(row('configmaps', { data: { a: '1', b: '2' }, binaryData: { c: 'eA==' } }), { Name: 'x', Data: 3, Age: '5m' });
    assert.equal(row('configmaps', {}).Data, 0);
  });

  test('Secret Type and Data', () => {
    assert.deepEqual(row('secrets', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } }), { Name: 'x', Type: 'kubernetes.io/tls', Data: 2, Age: '5m' });
  });

  test('ServiceAccount Secrets counts references', () => {
    assert.deepEqual(row('serviceaccounts', { secrets: [{ name: 'a' }] }), { Name: 'x', Secrets: 1, Age: '5m' });
    assert.equal(row('serviceaccounts', {}).Secrets, 0);
  });

  test('Namespace Status is the phase', () => {
    assert.deepEqual(row('namespaces', { status: { phase: 'Terminating' } }), { Name: 'x', Status: 'Terminating', Age: '5m' });
  });

  test('Lease Holder', () => {
    assert.deepEqual(row('leases', { spec: { holderIdentity: 'node-1' } }), { Name: 'x', Holder: 'node-1', Age: '5m' });
    assert.equal(row('leases', { spec: {} }).Holder, '');
  });

  const nodeCases: { name: string; node: Partial<KubeObject>; cells: Record<string, unknown> }[] = [
    {
      name: 'a ready control-plane node',
      node: {
        metadata: { name: 'n', creationTimestamp: created, labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/master': '', 'kubernetes.io/role': 'infra' } },
        status: {
          conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
          addresses: [{ type: 'Hostname', address: 'n' }, { type: 'InternalIP', address: '10.0.0.1' }],
          nodeInfo: { kubeletVersion: 'v1.33.0', osImage: 'Debian', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://2.0' },
        },
      },
      cells: {
        Name: 'n', Status: 'Ready', Roles: 'control-plane,infra,master', Age: '5m', Version: 'v1.33.0',
        'Internal-IP': '10.0.0.1', 'External-IP': '<none>', 'OS-Image': 'Debian', 'Kernel-Version': '6.1', 'Container-Runtime': 'containerd://2.0',
      },
    },
    {
      name: 'a cordoned node that is not ready',
      node: { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
      cells: { Status: 'NotReady,SchedulingDisabled', Roles: '<none>', Version: '', 'OS-Image': '<unknown>' },
    },
    { name: 'a node without conditions', node: {}, cells: { Status: 'Unknown' } },
  ];
  for (const c of nodeCases) {
    test(`Node: ${c.name}`, () => {
      const cells = row('nodes', c.node);
      for (const [k, v] of Object.entries(c.cells)) assert.deepEqual(cells[k], v, k);
    });
  }

  const eventCases: { name: string; event: Record<string, unknown>; cells: Record<string, unknown> }[] = [
    {
      name: 'a core event',
      event: {
        type: 'Warning', reason: 'BackOff', message: ' Back-off restarting \n', count: 7,
        firstTimestamp: '2024-05-01T10:00:00Z', lastTimestamp: '2024-05-01T11:59:00Z',
        involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{web}' },
        source: { component: 'kubelet', host: 'node-1' },
      },
      cells: {
        'Last Seen': '60s', Type: 'Warning', Reason: 'BackOff', Object: 'pod/web-1', Subobject: 'spec.containers{web}',
        Source: 'kubelet, node-1', Message: 'Back-off restarting', 'First Seen': '120m', Count: 7, Name: 'x',
      },
    },
    {
      name: 'an events.k8s.io-style event: eventTime, reporting controller, count 1',
      event: { type: 'Normal', reason: 'Scheduled', eventTime: '2024-05-01T11:58:00.000000Z', involvedObject: { kind: 'Pod' }, reportingComponent: 'default-scheduler' },
      cells: { 'Last Seen': '2m', 'First Seen': '2m', Object: 'pod', Source: 'default-scheduler', Count: 1 },
    },
    {
      name: 'a series overrides last seen and count',
      event: { firstTimestamp: '2024-05-01T11:00:00Z', count: 2, series: { count: 10, lastObservedTime: '2024-05-01T11:59:30.000000Z' } },
      cells: { 'Last Seen': '30s', 'First Seen': '60m', Count: 10 },
    },
    { name: 'no times at all', event: {}, cells: { 'Last Seen': '<unknown>', 'First Seen': '<unknown>', Object: '', Source: '' } },
  ];
  for (const c of eventCases) {
    test(`Event: ${c.name}`, () => {
      const cells = row('events', c.event);
      for (const [k, v] of Object.entries(c.cells)) assert.deepEqual(cells[k], v, k);
    });
  }

  const endpointCases: { name: string; subsets?: unknown[]; text: string }[] = [
    { name: 'no subsets', text: '<none>' },
    { name: 'addresses × ports', subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] }], text: '10.0.0.1:80,10.0.0.2:80' },
    { name: 'headless without ports', subsets: [{ addresses: [{ ip: '10.0.0.1' }] }], text: '10.0.0.1' },
    { name: 'IPv6 in brackets', subsets: [{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 443 }] }], text: '[fd00::1]:443' },
    {
      name: 'more than three',
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }], ports: [{ port: 80 }, { port: 81 }] }],
      text: '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 3 more...',
    },
    { name: 'subsets without addresses', subsets: [{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }], text: '' },
  ];
  for (const c of endpointCases) {
    test(`Endpoints: ${c.name}`, () => {
      assert.equal(row('endpoints', c.subsets === undefined ? {} : { subsets: c.subsets }).Endpoints, c.text);
    });
  }
});
