import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { imageTag, podQOSClass } from '../../../src/registry/builtin/pod-spec.ts';
import { objectFieldSet } from '../../../src/registry/selection.ts';
import { builtinType, fields, storeCreate, storeUpdate, withoutServerMeta } from '../../helpers/store.ts';

const pods = builtinType('pods');

function pod(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', ...metadata }, spec };
}

test('a created Pod gets upstream defaults and a Pending status', async () => {
  const { obj, causes } = await storeCreate(pods, pod({
    containers: [{
      name: 'app',
      image: 'nginx:1.27',
      ports: [{ containerPort: 80 }],
      env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      readinessProbe: { httpGet: { port: 80 } },
      resources: { limits: { cpu: '500m', memory: '128Mi' } },
      volumeMounts: [{ name: 'cache', mountPath: '/cache' }, { name: 'config', mountPath: '/etc/app' }],
    }],
    volumes: [{ name: 'cache' }, { name: 'config', configMap: { name: 'app' } }],
  }));
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: {
      containers: [{
        name: 'app',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
        readinessProbe: {
          httpGet: { port: 80, path: '/', scheme: 'HTTP' },
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        },
        // Requests default to the limits, which makes the pod Guaranteed.
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '500m', memory: '128Mi' } },
        volumeMounts: [{ name: 'cache', mountPath: '/cache' }, { name: 'config', mountPath: '/etc/app' }],
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      }],
      volumes: [{ name: 'cache', emptyDir: {} }, { name: 'config', configMap: { name: 'app', defaultMode: 420 } }],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
    },
    status: { phase: 'Pending', qosClass: 'Guaranteed' },
  });
});

test('status sent on create is replaced', async () => {
  const input = pod({ containers: [{ name: 'a', image: 'busybox' }] });
  input.status = { phase: 'Running', podIP: '10.0.0.1' };
  assert.deepEqual((await storeCreate(pods, input)).obj.status, { phase: 'Pending', qosClass: 'BestEffort' });
});

test('scheduling gates add a PodScheduled=False condition', async () => {
  const { obj } = await storeCreate(pods, pod({ containers: [{ name: 'a', image: 'busybox' }], schedulingGates: [{ name: 'example.com/wait' }] }));
  const conditions = (obj.status as { conditions: Record<string, unknown>[] }).conditions;
  assert.equal(conditions.length, 1);
  assert.equal(conditions[0]!.type, 'PodScheduled');
  assert.equal(conditions[0]!.reason, 'SchedulingGated');
});

const imageCases: [string, string | undefined][] = [
  ['nginx', 'latest'],
  ['nginx:latest', 'latest'],
  ['nginx:1.27', '1.27'],
  ['registry.example.com:5000/team/app', 'latest'],
  ['registry.example.com:5000/team/app:v2', 'v2'],
  ['nginx@sha256:0123', ''],
  ['nginx:1.2@sha256:0123', '1.2'],
  ['Nginx', undefined],
  ['', undefined],
];

for (const [image, tag] of imageCases) {
  test(`image ${JSON.stringify(image)} has tag ${JSON.stringify(tag)} (imagePullPolicy ${tag === 'latest' ? 'Always' : 'IfNotPresent'})`, () => {
    assert.equal(imageTag(image), tag);
  });
}

const qosCases: { name: string; resources: unknown[]; qos: string }[] = [
  { name: 'no resources is BestEffort', resources: [{}], qos: 'BestEffort' },
  { name: 'equal requests and limits for cpu and memory is Guaranteed', resources: [{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1000m', memory: '1024Mi' } }], qos: 'Guaranteed' },
  { name: 'requests only is Burstable', resources: [{ requests: { cpu: '100m' } }], qos: 'Burstable' },
  { name: 'a limit missing memory is Burstable', resources: [{ requests: { cpu: '1' }, limits: { cpu: '1' } }], qos: 'Burstable' },
  { name: 'one container without limits makes it Burstable', resources: [{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }, {}], qos: 'Burstable' },
  { name: 'zero quantities do not count', resources: [{ requests: { cpu: '0' } }], qos: 'BestEffort' },
];

for (const c of qosCases) {
  test(`QoS class: ${c.name}`, () => {
    assert.equal(podQOSClass({ containers: c.resources.map((r, i) => ({ name: `c${i}`, resources: r })) }), c.qos);
  });
}

test('QoS class: pod-level resources decide when the spec has them', () => {
  const guaranteed = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };
  const containers = [{ name: 'c', resources: { requests: { cpu: '100m' } } }];
  assert.equal(podQOSClass({ containers }), 'Burstable');
  assert.equal(podQOSClass({ containers, resources: guaranteed }), 'Guaranteed');
  assert.equal(podQOSClass({ containers: [{ name: 'c', resources: guaranteed }], resources: { requests: { cpu: '1' } } }), 'Burstable');
  // Only cpu and memory count: a container with nothing else is BestEffort.
  assert.equal(podQOSClass({ containers: [{ name: 'c', resources: { requests: { 'ephemeral-storage': '1Gi' } } }] }), 'BestEffort');
});

const invalidCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  { name: 'a pod needs containers', spec: {}, causes: ['spec.containers: Required value'] },
  {
    name: 'containers need a name and an image',
    spec: { containers: [{}] },
    causes: ['spec.containers[0].name: Required value', 'spec.containers[0].image: Required value'],
  },
  {
    name: 'container names are DNS labels and unique',
    spec: { containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'x' }, { name: 'B', image: 'x' }] },
    causes: [
      'spec.containers[1].name: Duplicate value: "a"',
      "spec.containers[2].name: Invalid value: \"B\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
  },
  {
    name: 'an init container may not reuse a container name',
    spec: { containers: [{ name: 'a', image: 'x' }], initContainers: [{ name: 'a', image: 'x' }] },
    causes: ['spec.initContainers[0].name: Duplicate value: "a"'],
  },
  {
    name: 'ports need a valid number and a known protocol',
    spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 70000 }, { containerPort: 80, protocol: 'HTTP' }] }] },
    causes: [
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ],
  },
  {
    name: 'restartPolicy and dnsPolicy take known values',
    spec: { containers: [{ name: 'a', image: 'x' }], restartPolicy: 'Sometimes', dnsPolicy: 'Google' },
    causes: [
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"',
    ],
  },
  {
    name: 'volume mounts name a volume',
    spec: { containers: [{ name: 'a', image: 'x', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] },
    causes: ['spec.containers[0].volumeMounts[0].name: Not found: "data"'],
  },
  {
    name: 'volume devices are claimed volumes at unique paths apart from the mounts',
    spec: {
      containers: [{
        name: 'a', image: 'x',
        volumeMounts: [{ name: 'scratch', mountPath: '/dev/xvda' }, { name: 'data', mountPath: '/data' }],
        volumeDevices: [
          { name: 'data', devicePath: '/dev/xvdb' }, { name: 'data', devicePath: '/dev/xvdb' }, { name: 'scratch', devicePath: '/dev/../xvdc' },
          { name: 'missing', devicePath: '' }, { name: 'block', devicePath: '/dev/xvda' }, { name: 'eph', devicePath: '/dev/xvde' },
        ],
      }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'c' } }, { name: 'block', persistentVolumeClaim: { claimName: 'b' } },
        { name: 'scratch', emptyDir: {} },
        { name: 'eph', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
      ],
    },
    causes: [
      'spec.containers[0].volumeMounts[0].name: Invalid value: "scratch": must not already exist in volumeDevices',
      'spec.containers[0].volumeMounts[0].mountPath: Invalid value: "/dev/xvda": must not already exist as a path in volumeDevices',
      'spec.containers[0].volumeMounts[1].name: Invalid value: "data": must not already exist in volumeDevices',
      'spec.containers[0].volumeDevices[0].name: Invalid value: "data": must not already exist in volumeMounts',
      'spec.containers[0].volumeDevices[1].name: Invalid value: "data": must be unique',
      'spec.containers[0].volumeDevices[1].devicePath: Invalid value: "/dev/xvdb": must be unique',
      'spec.containers[0].volumeDevices[1].name: Invalid value: "data": must not already exist in volumeMounts',
      'spec.containers[0].volumeDevices[2].name: Invalid value: "scratch": can only use volume source type of PersistentVolumeClaim for block mode',
      'spec.containers[0].volumeDevices[2].devicePath: Invalid value: "/dev/../xvdc": can not contain backsteps (\'..\')',
      'spec.containers[0].volumeDevices[2].name: Invalid value: "scratch": must not already exist in volumeMounts',
      'spec.containers[0].volumeDevices[3].name: Not found: "missing"',
      'spec.containers[0].volumeDevices[3].devicePath: Required value',
      'spec.containers[0].volumeDevices[4].devicePath: Invalid value: "/dev/xvda": must not already exist as a path in volumeMounts',
    ],
  },
  {
    name: 'a volume has one source',
    spec: { containers: [{ name: 'a', image: 'x' }], volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] },
    causes: ['spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type'],
  },
  {
    name: 'requests may not exceed limits',
    spec: { containers: [{ name: 'a', image: 'x', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }] },
    causes: ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
  },
  {
    name: 'an image may not be padded with spaces',
    spec: { containers: [{ name: 'a', image: ' nginx' }] },
    causes: ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'],
  },
  {
    name: 'ephemeral containers cannot be set on create',
    spec: { containers: [{ name: 'a', image: 'x' }], ephemeralContainers: [{ name: 'debug', image: 'x' }] },
    causes: ['spec.ephemeralContainers: Forbidden: cannot be set on create'],
  },
];

for (const c of invalidCases) {
  test(`Pod validation: ${c.name}`, async () => {
    const { causes } = await storeCreate(pods, pod(c.spec));
    assert.deepEqual(fields(causes), c.causes);
  });
}

test('a Pod without containers answers FieldValueRequired on spec.containers', async () => {
  const { causes } = await storeCreate(pods, pod({}));
  assert.deepEqual(causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }]);
});

test('a non-standard finalizer name without a slash is refused on built-in types, at its index', async () => {
  const { causes } = await storeCreate(pods, pod({ containers: [{ name: 'a', image: 'x' }] }, { finalizers: ['example.com/ok', 'custom'] }));
  assert.deepEqual(fields(causes), ['metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']);
});

async function storedPod(): Promise<KubeObject> {
  const { obj } = await storeCreate(pods, pod({ containers: [{ name: 'a', image: 'nginx:1' }], tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }] }));
  (obj.status as Record<string, unknown>).phase = 'Running';
  return obj;
}

test('a Pod update may change images and keeps the stored status and bumps generation', async () => {
  const old = await storedPod();
  const next = structuredClone(old);
  (next.spec as { containers: { image: string }[] }).containers[0]!.image = 'nginx:2';
  next.status = { phase: 'Failed' };
  const { obj, causes } = await storeUpdate(pods, next, old);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.status, old.status);
  assert.equal(obj.metadata.generation, 2);
});

test('a Pod update without spec changes keeps the generation', async () => {
  const old = await storedPod();
  const next = structuredClone(old);
  next.metadata.labels = { a: 'b' };
  assert.equal((await storeUpdate(pods, next, old)).obj.metadata.generation, 1);
});

test('a Pod update may not change other spec fields', async () => {
  const old = await storedPod();
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).restartPolicy = 'Never';
  const { causes } = await storeUpdate(pods, next, old);
  assert.equal(causes.length, 1);
  assert.equal(causes[0]!.field, 'spec');
  assert.equal(causes[0]!.reason, 'FieldValueForbidden');
  assert.match(causes[0]!.message!, /^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,/);
});

test('a Pod update may not add containers', async () => {
  const old = await storedPod();
  const next = structuredClone(old);
  (next.spec as { containers: unknown[] }).containers.push({ name: 'b', image: 'x' });
  assert.deepEqual(fields((await storeUpdate(pods, next, old)).causes), ['spec.containers: Forbidden: pod updates may not add or remove containers']);
});

test('a Pod update may add tolerations and change tolerationSeconds but not remove them', async () => {
  const old = await storedPod();
  const added = structuredClone(old);
  (added.spec as { tolerations: unknown[] }).tolerations = [
    { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 },
    { key: 'other', operator: 'Exists' },
  ];
  assert.deepEqual((await storeUpdate(pods, added, old)).causes, []);
  const removed = structuredClone(old);
  (removed.spec as { tolerations: unknown[] }).tolerations = [];
  assert.deepEqual(fields((await storeUpdate(pods, removed, old)).causes), ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
});

test('pods/status changes status only, keeping spec, owner references and the QoS class', async () => {
  const old = await storedPod();
  old.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'r1' }];
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).nodeName = 'node-1';
  delete next.metadata.ownerReferences;
  next.status = { phase: 'Running', podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }] };
  const { obj, causes } = await storeUpdate(pods, next, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, old.spec);
  assert.deepEqual(obj.metadata.ownerReferences, old.metadata.ownerReferences);
  assert.deepEqual(obj.status, { phase: 'Running', podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }], qosClass: 'BestEffort' });
});

test('a Pod exposes upstream\'s selectable fields', async () => {
  const { obj } = await storeCreate(pods, pod({ containers: [{ name: 'a', image: 'x' }], nodeName: 'node-1', serviceAccountName: 'sa' }));
  (obj.status as Record<string, unknown>).podIPs = [{ ip: '10.0.0.9' }];
  assert.deepEqual(objectFieldSet(pods, obj), {
    'metadata.name': 'web',
    'metadata.namespace': 'default',
    'spec.nodeName': 'node-1',
    'spec.restartPolicy': 'Always',
    'spec.schedulerName': 'default-scheduler',
    'spec.serviceAccountName': 'sa',
    'spec.hostNetwork': 'false',
    'status.phase': 'Pending',
    'status.podIP': '10.0.0.9',
    'status.nominatedNodeName': '',
  });
});

test('150k bad env vars are 150k causes, not a stack overflow (a 500) on the way up to the Pod', async () => {
  const env = Array.from({ length: 150_000 }, () => ({ name: '' }));
  const { causes } = await storeCreate(pods, pod({ containers: [{ name: 'c', image: 'busybox', env }] }));
  assert.equal(causes.filter((c) => /^spec\.containers\[0\]\.env\[\d+\]\.name$/.test(c.field ?? '')).length, 300_000, 'required, and not a valid name');
});
