// What a valid pod or pod template is warned of, as kube-apiserver v1.36's
// pkg/api/pod/warnings.go words it (GetWarningsForPod, GetWarningsForPodTemplate), and the
// AppArmor annotations a new Pod's strategy turns into fields (applyAppArmorVersionSkew).
// Each row is written as a Pod and as a PodTemplate (the same warnings under "template."):
// the write succeeds, and sends exactly these Warning texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, createWarned, updateWarned } from '../../helpers/store.ts';

const pods = builtinType('pods');
const podTemplates = builtinType('podtemplates');

type Json = Record<string, unknown>;

const app = { name: 'app', image: 'nginx:1' };

function pod(spec: Json, annotations?: Record<string, string>, name = 'web'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) }, spec: { containers: [app], ...spec } };
}

function podTemplate(spec: Json, annotations?: Record<string, string>): KubeObject {
  const metadata = annotations ? { annotations } : {};
  return { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'web', namespace: 'default' }, template: { metadata, spec: { containers: [app], ...spec } } } as KubeObject;
}

/** A pod's warning as a template at `path` words it: its paths (and those it names) under the template's. */
const under = (path: string) => (warning: string) => warning.replace(/(^|\s)(spec|metadata)([.[])/g, `$1${path}.$2$3`);

const labelValueError = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const selector = { matchLabels: { app: 'web' } };
const spread = (topologyKey: string, labelSelector?: Json) => ({ maxSkew: 1, topologyKey, whenUnsatisfiable: 'DoNotSchedule', ...(labelSelector ? { labelSelector } : {}) });
const expression = (key: string, values = ['x']) => ({ key, operator: 'In', values });
const port = (containerPort: number, extra: Json = {}) => ({ containerPort, protocol: 'UDP', ...extra });

interface Case {
  name: string;
  spec: Json;
  annotations?: Record<string, string>;
  warnings: string[];
}

const cases: Case[] = [
  {
    name: 'a pod with none of it has no warnings',
    spec: {
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expression('topology.kubernetes.io/zone', ['a'])] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [expression('kubernetes.io/arch', ['amd64'])] } }],
        },
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, topologyKey: 'kubernetes.io/hostname' }] },
      },
      topologySpreadConstraints: [spread('topology.kubernetes.io/zone', selector)],
      hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }, { ip: '2001:db8::1', hostnames: ['b'] }],
      dnsConfig: { nameservers: ['10.0.0.10', '2001:db8::53'] },
      imagePullSecrets: [{ name: 'a' }, { name: 'b' }],
      overhead: { memory: '1Mi' },
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      terminationGracePeriodSeconds: 0,
      containers: [{
        ...app,
        ports: [port(80, { name: 'http' }), port(81, { hostPort: 81, hostIP: '10.0.0.1' })],
        resources: { requests: { memory: '0.5Gi', 'ephemeral-storage': '1G', cpu: '100m' }, limits: { memory: '1Gi' } },
        env: [{ name: 'A', value: 'a' }, { name: 'A', value: '$(A)-b' }],
      }],
      volumes: [{ name: 'config', configMap: { name: 'c', items: [{ key: 'a', path: 'a/b' }, { key: 'b', path: 'ab' }] } }],
    },
    annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default' },
    warnings: [],
  },
  {
    name: 'deprecated node labels in the node selector, in key order',
    spec: { nodeSelector: { 'failure-domain.beta.kubernetes.io/zone': 'a', 'beta.kubernetes.io/arch': 'amd64', 'node-role.kubernetes.io/master': '', 'kubernetes.io/os': 'linux' } },
    warnings: [
      'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
      'spec.nodeSelector[failure-domain.beta.kubernetes.io/zone]: deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
      'spec.nodeSelector[node-role.kubernetes.io/master]: use "node-role.kubernetes.io/control-plane" instead',
    ],
  },
  {
    name: 'deprecated node labels in node affinity, and label values a preferred term may hold',
    spec: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expression('kubernetes.io/os'), expression('beta.kubernetes.io/os')] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [expression('beta.kubernetes.io/instance-type', ['m5', '-1'])] } }],
        },
      },
    },
    warnings: [
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: beta.kubernetes.io/instance-type is deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
      `spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[1]: -1 is invalid, ${labelValueError}`,
    ],
  },
  {
    name: 'topology spread constraints: a deprecated topology key, a null label selector',
    spec: { topologySpreadConstraints: [spread('failure-domain.beta.kubernetes.io/region', selector), spread('kubernetes.io/hostname')] },
    warnings: [
      'spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use "topology.kubernetes.io/region" instead',
      'spec.topologySpreadConstraints[1].labelSelector: a null labelSelector results in matching no pod',
    ],
  },
  {
    name: 'annotations that no longer do anything',
    spec: {},
    annotations: {
      'security.alpha.kubernetes.io/unsafe-sysctls': 'd', 'scheduler.alpha.kubernetes.io/critical-pod': '', 'security.alpha.kubernetes.io/sysctls': 'a',
      'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/app': 'runtime/default',
    },
    warnings: [
      'metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
      'metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "sysctls" field instead',
      'metadata.annotations[security.alpha.kubernetes.io/unsafe-sysctls]: non-functional in v1.11+; use the "sysctls" field instead',
      'metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead',
      'metadata.annotations[container.seccomp.security.alpha.kubernetes.io/app]: non-functional in v1.27+; use the "seccompProfile" field instead',
    ],
  },
  {
    name: 'deprecated and removed volume plugins, in upstream\'s order',
    spec: {
      volumes: [
        { name: 'rbd', rbd: { monitors: ['m'], image: 'i' } },
        { name: 'cephfs', cephfs: { monitors: ['m'] } },
        { name: 'gluster', glusterfs: { endpoints: 'e', path: 'p' } },
        { name: 'quobyte', quobyte: { registry: 'r:7861', volume: 'v' } },
        { name: 'storageos', storageos: { volumeName: 'v' } },
        { name: 'flocker', flocker: { datasetName: 'd' } },
        { name: 'scaleio', scaleIO: { gateway: 'g', system: 's', volumeName: 'v', secretRef: { name: 's' } } },
        { name: 'git', gitRepo: { repository: 'https://example.com/r.git' } },
        { name: 'photon', photonPersistentDisk: { pdID: 'p' } },
      ],
    },
    warnings: [
      'spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+',
      'spec.volumes[1].cephfs: deprecated in v1.28, non-functional in v1.31+',
      'spec.volumes[2].glusterfs: deprecated in v1.25, non-functional in v1.26+',
      'spec.volumes[3].quobyte: deprecated in v1.22, non-functional in v1.25+',
      'spec.volumes[4].storageOS: deprecated in v1.22, non-functional in v1.25+',
      'spec.volumes[5].flocker: deprecated in v1.22, non-functional in v1.25+',
      'spec.volumes[6].scaleIO: deprecated in v1.16, non-functional in v1.22+',
      'spec.volumes[7].gitRepo: deprecated in v1.11, and disabled by default in v1.33+',
      'spec.volumes[8].photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+',
    ],
  },
  {
    name: "an ephemeral volume's claim asking for a fractional byte count",
    spec: {
      volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '200m' } } } } } }],
    },
    warnings: ['spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "200m" is invalid, must be an integer'],
  },
  {
    name: 'files a volume maps onto each other',
    spec: {
      volumes: [
        { name: 'cm', configMap: { name: 'foo', items: [{ key: 'a', path: 'test' }, { key: 'b', path: 'test/app' }, { key: 'c', path: 'test/' }] } },
        { name: 'sec', secret: { secretName: 'bar', items: [{ key: 'a', path: 'x' }, { key: 'b', path: 'x' }] } },
        { name: 'dapi', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }, { path: 'n/m', fieldRef: { fieldPath: 'metadata.uid' } }] } },
      ],
    },
    warnings: [
      'volume "cm" (ConfigMap "foo"): overlapping paths: "test/app" with "test"',
      'volume "cm" (ConfigMap "foo"): overlapping paths: "test" with "test"',
      'volume "cm" (ConfigMap "foo"): overlapping paths: "test" with "test/app"',
      'volume "sec" (Secret "bar"): overlapping paths: "x" with "x"',
      'volume "dapi" (DownwardAPI): overlapping paths: "n/m" with "n"',
    ],
  },
  {
    name: "a projected volume's sources mapping onto each other, and a source of no kind",
    spec: {
      serviceAccountName: 'default',
      volumes: [{
        name: 'all',
        projected: {
          sources: [
            { configMap: { name: 'cm', items: [{ key: 'a', path: 'token' }] } },
            { serviceAccountToken: { path: 'token/x' } },
            { downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
            { secret: { name: 's', items: [{ key: 'k', path: 'name/x' }] } },
            {},
          ],
        },
      }],
    },
    warnings: [
      'volume "all" (Projected): overlapping paths: "token/x" (ServiceAccountToken) with "token" (ConfigMap "cm")',
      'volume "all" (Projected): overlapping paths: "name/x" (Secret "s") with "name" (DownwardAPI)',
      'volume "all" (Projected) has no sources provided',
    ],
  },
  {
    name: 'a projected source with no paths: upstream checks the previous source\'s paths again',
    spec: {
      volumes: [{ name: 'p', projected: { sources: [{ secret: { name: 's', items: [{ key: 'k', path: 'a' }] } }, { configMap: { name: 'cm' } }] } }],
    },
    warnings: ['volume "p" (Projected): overlapping paths: "a" (Secret "s") with "a" (Secret "s")'],
  },
  {
    name: 'duplicate host alias IPs and image pull secrets, a pull secret without name',
    spec: {
      hostAliases: [{ ip: '1.1.1.1', hostnames: ['a'] }, { ip: '1.1.1.1', hostnames: ['b'] }, { ip: '1.1.1.1', hostnames: ['c'] }],
      imagePullSecrets: [{ name: 'a' }, { name: 'a' }, { name: '' }],
    },
    warnings: [
      'spec.hostAliases[1].ip: duplicate ip "1.1.1.1"',
      'spec.hostAliases[2].ip: duplicate ip "1.1.1.1"',
      'spec.imagePullSecrets[1].name: duplicate name "a"',
      'spec.imagePullSecrets[2].name: invalid empty name ""',
    ],
  },
  {
    name: 'memory and ephemeral storage that are no whole number of bytes, printed canonically',
    spec: {
      overhead: { memory: '0.5', 'ephemeral-storage': '4m' },
      initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { memory: '4m', 'ephemeral-storage': '1.5' }, limits: { memory: '4m' } } }],
      containers: [{ ...app, resources: { limits: { 'ephemeral-storage': '1.0005k' }, requests: { 'ephemeral-storage': '1.0005k' } } }],
    },
    warnings: [
      'spec.overhead[memory]: fractional byte value "500m" is invalid, must be an integer',
      'spec.overhead[ephemeral-storage]: fractional byte value "4m" is invalid, must be an integer',
      'spec.initContainers[0].resources.limits[memory]: fractional byte value "4m" is invalid, must be an integer',
      'spec.initContainers[0].resources.requests[memory]: fractional byte value "4m" is invalid, must be an integer',
      'spec.initContainers[0].resources.requests[ephemeral-storage]: fractional byte value "1500m" is invalid, must be an integer',
      'spec.containers[0].resources.limits[ephemeral-storage]: fractional byte value "1000500m" is invalid, must be an integer',
      'spec.containers[0].resources.requests[ephemeral-storage]: fractional byte value "1000500m" is invalid, must be an integer',
    ],
  },
  {
    name: 'an env var hiding an earlier one of its name, unless it refers to it',
    spec: {
      containers: [{
        ...app,
        env: [
          { name: 'a', value: 'a' }, { name: 'a', value: 'a' }, { name: 'a', value: '' }, { name: 'a', value: '$(a)' },
          { name: 'a', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'a', value: '$(a) $(a)' }, { name: 'b', value: 'b' },
        ],
      }],
    },
    warnings: [1, 2, 3, 4].map((i) => `spec.containers[0].env[${i}]: hides previous definition of "a", which may be dropped when using apply`),
  },
  {
    name: 'a host IP without host port, ports that duplicate, overlap or are ambiguous, a port name used twice',
    spec: {
      initContainers: [{ name: 'side', image: 'envoy', restartPolicy: 'Always', ports: [port(9000, { name: 'admin' })] }],
      containers: [
        { ...app, ports: [port(80, { hostIP: '10.0.0.1' }), port(81), port(82, { hostPort: 82, hostIP: '10.0.0.1' })] },
        { name: 'b', image: 'b', ports: [port(80, { hostIP: '10.0.0.1' }), port(81, { hostPort: 8081 }), port(82, { hostPort: 82 }), port(9001, { name: 'admin' })] },
      ],
    },
    warnings: [
      'spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:UDP HostIP:10.0.0.1}',
      'spec.containers[1].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:UDP HostIP:10.0.0.1}',
      'spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]',
      'spec.containers[1].ports[1]: overlapping port definition with spec.containers[0].ports[1]',
      'spec.containers[1].ports[2]: dangerously ambiguous port definition with spec.containers[0].ports[2]',
      'spec.containers[1].ports[3]: duplicate port name "admin" with spec.initContainers[0].ports[0], services and probes that select ports by name will use spec.initContainers[0].ports[0]',
    ],
  },
  {
    name: 'a negative termination grace period',
    spec: { terminationGracePeriodSeconds: -1 },
    warnings: ['spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1'],
  },
  {
    name: 'pod (anti-)affinity terms whose null label selector matches no pod',
    spec: {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, topologyKey: 'k' }, { topologyKey: 'k' }],
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'k' } }],
        },
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k' }],
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: selector, topologyKey: 'k' } }, { weight: 1, podAffinityTerm: { topologyKey: 'k' } }],
        },
      },
    },
    warnings: [
      'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector: a null labelSelector results in matching no pod',
      'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod',
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod',
    ],
  },
  {
    name: 'IPv6 nameservers and host alias IPs not in RFC 5952 form',
    spec: { dnsConfig: { nameservers: ['10.0.0.10', '2001:DB8:0:0::53'] }, hostAliases: [{ ip: 'fd00:0::1', hostnames: ['a'] }] },
    warnings: [
      'spec.dnsConfig.nameservers[1]: IPv6 address "2001:DB8:0:0::53" should be in RFC 5952 canonical format ("2001:db8::53")',
      'spec.hostAliases[0].ip: IPv6 address "fd00:0::1" should be in RFC 5952 canonical format ("fd00::1")',
    ],
  },
];

for (const c of cases) {
  test(`a Pod: ${c.name}`, async () => {
    const { causes, warnings } = await createWarned(pods, pod(c.spec, c.annotations));
    assert.deepEqual(causes, []);
    assert.deepEqual(warnings, c.warnings);
  });
  test(`a PodTemplate: ${c.name}`, async () => {
    const { causes, warnings } = await createWarned(podTemplates, podTemplate(c.spec, c.annotations));
    assert.deepEqual(causes, []);
    assert.deepEqual(warnings, c.warnings.map(under('template')));
  });
}

test("a Pod named other than a DNS label is warned of its hostname; an invalid one is refused, unwarned", async () => {
  assert.deepEqual((await createWarned(pods, pod({}, undefined, 'web.v1'))).warnings, [
    "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
  ]);
  assert.deepEqual((await createWarned(pods, pod({}, undefined, `a${'b'.repeat(63)}`))).warnings, [
    "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must be no more than 63 characters]",
  ]);
  const invalid = await createWarned(pods, pod({ nodeSelector: { 'beta.kubernetes.io/os': 'linux' } }, undefined, 'web-'));
  assert.equal(invalid.causes.length, 1);
  assert.deepEqual(invalid.warnings, []);
});

test('a Pod update is warned of nothing, as upstream skips warnings on pod updates', async () => {
  const deprecated = pod({ nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' }, terminationGracePeriodSeconds: -1 }, undefined, 'web.v1');
  const { obj: created, warnings: onCreate } = await createWarned(pods, deprecated);
  assert.equal(onCreate.length, 3);
  const relabelled = { ...created, metadata: { ...created.metadata, labels: { tier: 'fe' } } };
  const { causes, warnings } = await updateWarned(pods, relabelled, created);
  assert.deepEqual(causes, []);
  assert.deepEqual(warnings, []);
});

// ---- pods/status ----

function boundPod(status: Json): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u-1', generation: 1 },
    spec: { containers: [app], restartPolicy: 'Always', nodeName: 'node-1', terminationGracePeriodSeconds: 30 },
    status: { phase: 'Running', qosClass: 'BestEffort', ...status },
  };
}

test('pods/status: pod and host IPs a later release will refuse, or IPv6 not canonical, are warned of', async () => {
  // The host IP was stored before strict validation: it may stay, and is warned of.
  const old = boundPod({ hostIP: '::ffff:10.0.0.1', hostIPs: [{ ip: '::ffff:10.0.0.1' }] });
  const status = { hostIP: '::ffff:10.0.0.1', hostIPs: [{ ip: '::ffff:10.0.0.1' }], podIP: '10.1.0.5', podIPs: [{ ip: '10.1.0.5' }, { ip: '2001:DB8::5' }] };
  const { causes, warnings } = await updateWarned(pods, { ...old, status: { ...(old.status as Json), ...status } }, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(warnings, [
    'status.podIPs[1].ip: IPv6 address "2001:DB8::5" should be in RFC 5952 canonical format ("2001:db8::5")',
    'status.hostIPs[0].ip: non-standard IP address "::ffff:10.0.0.1" will be considered invalid in a future Kubernetes release: use "10.0.0.1"',
  ]);
});

test('pods/status: canonical IPs are warned of nothing', async () => {
  const old = boundPod({});
  const status = { hostIP: '10.0.0.1', hostIPs: [{ ip: '10.0.0.1' }, { ip: '2001:db8::1' }], podIP: '10.1.0.5', podIPs: [{ ip: '10.1.0.5' }] };
  const { causes, warnings } = await updateWarned(pods, { ...old, status: { ...(old.status as Json), ...status } }, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(warnings, []);
});

// ---- AppArmor annotations ----

const appArmorKey = 'container.apparmor.security.beta.kubernetes.io/app';
const appArmorWarning = `metadata.annotations[${appArmorKey}]: deprecated since v1.30; use the "appArmorProfile" field instead`;
const containerProfile = (obj: KubeObject) => ((obj.spec as { containers: { securityContext?: Json }[] }).containers[0]!.securityContext ?? {}).appArmorProfile;

interface AppArmorCase {
  name: string;
  annotation: string;
  spec?: Json;
  warnings: string[];
  /** The container's profile after the create. */
  profile: unknown;
}

const appArmorCases: AppArmorCase[] = [
  { name: 'a localhost profile becomes the container\'s field', annotation: 'localhost/my-profile', warnings: [appArmorWarning], profile: { type: 'Localhost', localhostProfile: 'my-profile' } },
  { name: 'runtime/default becomes the field', annotation: 'runtime/default', warnings: [appArmorWarning], profile: { type: 'RuntimeDefault' } },
  { name: 'unconfined becomes the field', annotation: 'unconfined', warnings: [appArmorWarning], profile: { type: 'Unconfined' } },
  { name: 'a localhost profile without a name gives no field, still a warning', annotation: 'localhost/', warnings: [appArmorWarning], profile: undefined },
  {
    name: "the pod's own profile is not copied, nor warned of",
    annotation: 'runtime/default', spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }, warnings: [], profile: undefined,
  },
  {
    name: 'another profile than the pod\'s is copied',
    annotation: 'unconfined', spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }, warnings: [appArmorWarning], profile: { type: 'Unconfined' },
  },
  {
    name: 'a container with its own field keeps it, unwarned',
    annotation: 'runtime/default', spec: { containers: [{ ...app, securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }] }, warnings: [], profile: { type: 'RuntimeDefault' },
  },
];

for (const c of appArmorCases) {
  test(`a Pod's AppArmor annotation: ${c.name}`, async () => {
    const { obj, causes, warnings } = await createWarned(pods, pod(c.spec ?? {}, { [appArmorKey]: c.annotation }));
    assert.deepEqual(causes, []);
    assert.deepEqual(warnings, c.warnings);
    assert.deepEqual(containerProfile(obj), c.profile);
  });
}

test("a PodTemplate's AppArmor annotation is warned of unless a field sets the profile; the template is not changed", async () => {
  const { obj, warnings } = await createWarned(podTemplates, podTemplate({}, { [appArmorKey]: 'runtime/default' }));
  assert.deepEqual(warnings, [`template.${appArmorWarning}`]);
  assert.equal((obj as unknown as { template: { spec: { containers: Json[] } } }).template.spec.containers[0]!.securityContext, undefined);
  const withField = await createWarned(podTemplates, podTemplate({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }, { [appArmorKey]: 'runtime/default' }));
  assert.deepEqual(withField.warnings, []);
});
