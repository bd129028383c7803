// The Pod Security Standards checks with plain pod specs: each check's reason and detail
// as upstream words them, the order checks report in, restricted's overrides of baseline
// checks, and the revisions a pinned policy version selects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/api/json.ts';
import type { PodMetadata } from '../../src/admission/pod-security/check.ts';
import { parseVersion, type Level, type LevelVersion } from '../../src/admission/pod-security/levels.ts';
import { evaluatePod, forbiddenDetail, forbiddenReason, maxPolicyVersion } from '../../src/admission/pod-security/registry.ts';

function at(level: Level, version = 'latest'): LevelVersion {
  return { level, version: parseVersion(version).value };
}

function detail(lv: LevelVersion, spec: JsonObject, metadata: PodMetadata = {}): string {
  return forbiddenDetail(evaluatePod(lv, metadata, spec));
}

/** A container that passes restricted, with `securityContext` fields added. */
function good(name: string, securityContext: JsonObject = {}, rest: JsonObject = {}): JsonObject {
  return {
    name, image: 'busybox', ...rest,
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, ...securityContext },
  };
}

const baselineCases: { name: string; spec: JsonObject; metadata?: PodMetadata; expect: string }[] = [
  { name: 'an empty pod passes', spec: { containers: [{ name: 'c', image: 'i' }] }, expect: '' },
  { name: 'host namespaces', spec: { hostNetwork: true, hostPID: true, hostIPC: true, containers: [] }, expect: 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)' },
  { name: 'privileged containers', spec: { containers: [{ name: 'a', securityContext: { privileged: true } }, { name: 'b', securityContext: { privileged: false } }] }, expect: 'privileged (container "a" must not set securityContext.privileged=true)' },
  {
    name: 'non-default capabilities, sorted and distinct',
    spec: { initContainers: [{ name: 'i', securityContext: { capabilities: { add: ['SYS_ADMIN', 'CHOWN'] } } }], containers: [{ name: 'c', securityContext: { capabilities: { add: ['NET_RAW', 'SYS_ADMIN'] } } }] },
    expect: 'non-default capabilities (containers "i", "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  { name: 'hostPath volumes', spec: { volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', emptyDir: {} }, { name: 'c', hostPath: { path: '/x' } }] }, expect: 'hostPath volumes (volumes "a", "c")' },
  {
    name: 'host ports sort as strings',
    spec: { containers: [{ name: 'a', ports: [{ containerPort: 1, hostPort: 8080 }, { containerPort: 2, hostPort: 10000 }] }, { name: 'b', ports: [{ containerPort: 3 }] }] },
    expect: 'hostPort (container "a" uses hostPorts 10000, 8080)',
  },
  {
    name: 'probe and lifecycle hosts, containers sorted',
    spec: {
      containers: [
        { name: 'z', livenessProbe: { httpGet: { host: 'h1', port: 80 } } },
        { name: 'a', lifecycle: { preStop: { tcpSocket: { host: 'h0', port: 80 } } } },
      ],
    },
    expect: 'probe or lifecycle host (containers "a", "z" use probe or lifecycle hosts "h0", "h1")',
  },
  {
    name: 'AppArmor fields and annotations',
    spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [{ name: 'c' }] },
    metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/d': 'localhost/x' } },
    expect: 'forbidden AppArmor profiles (pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c="unconfined"")',
  },
  {
    name: 'SELinux type, user and role',
    spec: { securityContext: { seLinuxOptions: { user: 'u' } }, containers: [{ name: 'c', securityContext: { seLinuxOptions: { type: 'spc_t', role: 'r' } } }] },
    expect: 'seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
  },
  { name: 'container_engine_t is allowed at latest', spec: { containers: [{ name: 'c', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] }, expect: '' },
  {
    name: 'procMount',
    spec: { containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }, { name: 'b', securityContext: { procMount: 'Default' } }] },
    expect: 'procMount (container "a" must not set securityContext.procMount to "Unmasked")',
  },
  { name: 'procMount is free in a user namespace', spec: { hostUsers: false, containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }] }, expect: '' },
  {
    name: 'seccomp profile types',
    spec: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'c', securityContext: { seccompProfile: { type: 'Unconfined' } } }, { name: 'd' }] },
    expect: 'seccompProfile (pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
  },
  {
    name: 'sysctls in the order set',
    spec: { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_rmem', value: '1' }, { name: 'net.core.somaxconn', value: '1' }] } },
    expect: 'forbidden sysctls (kernel.msgmax, net.core.somaxconn)',
  },
  {
    name: 'Windows host process',
    spec: { securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'c', securityContext: { windowsOptions: { hostProcess: true } } }] },
    expect: 'hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)',
  },
  {
    name: 'several checks report baseline ids in order',
    spec: { hostPID: true, securityContext: { sysctls: [{ name: 'a.b' }] }, containers: [{ name: 'c', securityContext: { privileged: true, seLinuxOptions: { role: 'r' } } }] },
    expect: 'host namespaces (hostPID=true), privileged (container "c" must not set securityContext.privileged=true), ' +
      'seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: role may not be set), forbidden sysctls (a.b)',
  },
];

for (const c of baselineCases) {
  test(`baseline: ${c.name}`, () => {
    assert.equal(detail(at('baseline'), c.spec, c.metadata), c.expect);
  });
}

const restrictedCases: { name: string; spec: JsonObject; expect: string }[] = [
  { name: 'a pod that sets everything passes', spec: { containers: [good('c')], volumes: [{ name: 'v', image: { reference: 'x' } }] }, expect: '' },
  {
    name: 'a bare container fails every rule',
    spec: { containers: [{ name: 'c', image: 'i' }] },
    expect: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
      'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
      'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  {
    name: 'capabilities: restricted replaces the baseline check',
    spec: { containers: [good('a', { capabilities: { drop: ['NET_RAW'], add: ['SYS_ADMIN', 'NET_BIND_SERVICE'] } })] },
    expect: 'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  {
    name: 'restricted volume types replace hostPath volumes',
    spec: { containers: [good('c')], volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', nfs: { server: 's', path: '/' } }, { name: 'c', secret: { secretName: 's' } }] },
    expect: 'restricted volume types (volumes "a", "b" use restricted volume types "hostPath", "nfs")',
  },
  {
    name: 'runAsNonRoot set false',
    spec: { securityContext: { runAsNonRoot: false }, containers: [good('a', { runAsNonRoot: false }), good('b', { runAsNonRoot: undefined })] },
    expect: 'runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false)',
  },
  { name: 'runAsNonRoot at the pod covers containers', spec: { securityContext: { runAsNonRoot: true }, containers: [good('a', { runAsNonRoot: undefined })] }, expect: '' },
  { name: 'runAsUser 0', spec: { securityContext: { runAsUser: 0 }, containers: [good('a', { runAsUser: 0 }), good('b', { runAsUser: 1000 })] }, expect: 'runAsUser=0 (pod and container "a" must not set runAsUser=0)' },
  { name: 'a user namespace relaxes runAsNonRoot and runAsUser', spec: { hostUsers: false, containers: [good('a', { runAsNonRoot: false, runAsUser: 0 })] }, expect: '' },
  {
    name: 'a user namespace does not relax procMount in restricted',
    spec: { hostUsers: false, containers: [good('a', { procMount: 'Unmasked' })] },
    expect: 'procMount (container "a" must not set securityContext.procMount to "Unmasked")',
  },
  {
    name: 'seccomp: a pod-level profile covers the containers',
    spec: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } }, containers: [good('a', { seccompProfile: undefined })] },
    expect: '',
  },
  {
    name: 'a Windows pod passes what Windows cannot set',
    spec: { os: { name: 'windows' }, containers: [{ name: 'c', securityContext: { runAsNonRoot: true } }] },
    expect: '',
  },
];

for (const c of restrictedCases) {
  test(`restricted: ${c.name}`, () => {
    // JSON has no undefined members: drop the ones the rows use to unset a field.
    assert.equal(detail(at('restricted'), JSON.parse(JSON.stringify(c.spec))), c.expect);
  });
}

const versionCases: { name: string; lv: LevelVersion; spec: JsonObject; metadata?: PodMetadata; expect: string }[] = [
  { name: 'latest evaluates as the newest policy version', lv: at('baseline', 'v1.99'), spec: { containers: [{ name: 'c', livenessProbe: { tcpSocket: { host: 'h', port: 1 } } }] }, expect: 'probe or lifecycle host (container "c" uses probe or lifecycle host "h")' },
  { name: 'probe hosts are not checked before v1.34', lv: at('baseline', 'v1.33'), spec: { containers: [{ name: 'c', livenessProbe: { tcpSocket: { host: 'h', port: 1 } } }] }, expect: '' },
  { name: 'sysctls allowed from v1.29 are forbidden at v1.28', lv: at('baseline', 'v1.28'), spec: { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time' }, { name: 'net.ipv4.ip_local_reserved_ports' }] } }, expect: 'forbidden sysctls (net.ipv4.tcp_keepalive_time)' },
  { name: 'container_engine_t is forbidden before v1.31', lv: at('baseline', 'v1.30'), spec: { containers: [{ name: 'c', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] }, expect: 'seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t")' },
  { name: 'procMount is not relaxed for user namespaces before v1.35', lv: at('baseline', 'v1.34'), spec: { hostUsers: false, containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }] }, expect: 'procMount (container "a" must not set securityContext.procMount to "Unmasked")' },
  {
    name: 'seccomp annotations before v1.19, baseline and restricted alike',
    lv: at('restricted', 'v1.18'),
    spec: { containers: [good('c', { seccompProfile: undefined })] },
    metadata: { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/c': 'runtime/default' } },
    expect: 'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")',
  },
  {
    name: 'restricted before v1.22 checks capabilities as baseline does',
    lv: at('restricted', 'v1.21'),
    spec: { containers: [good('c', { capabilities: { add: ['NET_RAW'] } })] },
    expect: 'non-default capabilities (container "c" must not include "NET_RAW" in securityContext.capabilities.add)',
  },
  {
    name: 'runAsUser is not checked before v1.23, nor user namespaces relaxed before v1.35',
    lv: at('restricted', 'v1.22'),
    spec: { hostUsers: false, containers: [good('c', { runAsUser: 0, runAsNonRoot: false })] },
    expect: 'runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false)',
  },
  {
    name: 'Windows pods are not exempt before v1.25',
    lv: at('restricted', 'v1.24'),
    spec: { os: { name: 'windows' }, containers: [{ name: 'c', securityContext: { runAsNonRoot: true } }] },
    expect: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
      'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  { name: 'privilege escalation is not checked before v1.8', lv: at('restricted', 'v1.7'), spec: { containers: [good('c', { allowPrivilegeEscalation: true })] }, expect: '' },
  { name: 'privileged checks nothing', lv: at('privileged'), spec: { hostPID: true, containers: [{ name: 'c', securityContext: { privileged: true } }] }, expect: '' },
];

for (const c of versionCases) {
  test(`versions: ${c.name}`, () => {
    assert.equal(detail(c.lv, JSON.parse(JSON.stringify(c.spec)), c.metadata), c.expect);
  });
}

test('latest is policy v1.35, the newest revision of any check', () => {
  assert.equal(maxPolicyVersion, 35);
});

test('the reason alone names what a namespace\'s existing pods violate', () => {
  const violations = evaluatePod(at('baseline'), {}, { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] });
  assert.equal(forbiddenReason(violations), 'host namespaces, privileged');
});
