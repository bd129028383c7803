// PodSpec defaults and validation shared by Pods and pod templates (Deployments), after
// kubernetes pkg/apis/core/v1/defaults.go and pkg/apis/core/validation/validation.go.

import type { StatusCause } from '../../api/index.ts';
import { appendAll, child, duplicate, forbidden, index, invalid, key, notFound, notSupported, required } from '../validation/field.ts';
import type { FieldPath } from '../validation/field.ts';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isDNS1123SubdomainWithUnderscore, isQualifiedName, isValidPortName, isValidPortNum } from '../validation/names.ts';
import { validateAnnotations, validateLabels } from '../validation/object-meta.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { arrayAt, defaultEmptyObject, ensureObject, numberAt, objectAt, objectsAt, present, setDefault, stringAt } from './object.ts';
import { compareQuantity, isNegative, isZero, parseQuantity, zeroQuantity } from '../../api/quantity.ts';
import { legacyIPCauses } from './legacy-ip-fields.ts';
import { keepsInvalidDeletionCost, validatePodSpecificAnnotations, validateSecurityAnnotationsMatchFields } from './pod-annotations.ts';
import { validateContainerProbes } from './pod-probes.ts';
import { validateAffinity, validateTolerations, validateTopologySpreadConstraints } from './pod-scheduling.ts';
import { validateContainerSecurityContext, validateForOS, validateHostProcessPod, validateHostUsers, validatePodSecurityContext } from './pod-security.ts';
import { hasBackstep, validateVolumeSource, type VolumeSourceContext } from './pod-volume-sources.ts';

// ---------- defaults ----------

/** The tag part of an image reference, as upstream's ParseImageName reports it ("latest" when neither tag nor digest). */
export function imageTag(image: string): string | undefined {
  // References that do not parse (empty, upper-case repository, spaces) have no tag.
  if (image === '' || /\s/.test(image)) return undefined;
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  const repository = colon < 0 ? name : name.slice(0, colon);
  const firstSlash = repository.indexOf('/');
  const path = firstSlash < 0 ? repository : repository.slice(firstSlash + 1);
  const domain = firstSlash < 0 ? '' : repository.slice(0, firstSlash);
  const hasDomain = domain.includes('.') || domain.includes(':') || domain === 'localhost' || /[A-Z]/.test(domain);
  if (/[A-Z]/.test(hasDomain ? path : repository)) return undefined;
  if (colon >= 0) return name.slice(colon + 1);
  return at < 0 ? 'latest' : '';
}

function defaultProbe(probe: unknown): void {
  if (!isObject(probe)) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHTTPGet(probe.httpGet);
}

function defaultHTTPGet(httpGet: unknown): void {
  if (!isObject(httpGet)) return;
  setDefault(httpGet, 'path', '/');
  setDefault(httpGet, 'scheme', 'HTTP');
}

function defaultFieldRef(fieldRef: unknown): void {
  if (isObject(fieldRef)) setDefault(fieldRef, 'apiVersion', 'v1');
}

/** SetDefaults_Container and the defaults of what a container holds. */
function defaultContainer(container: JsonObject): void {
  if (!container.imagePullPolicy) {
    container.imagePullPolicy = imageTag(stringAt(container, 'image')) === 'latest' ? 'Always' : 'IfNotPresent';
  }
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  defaultEmptyObject(container, 'resources');
  for (const port of objectsAt(container, 'ports')) setDefault(port, 'protocol', 'TCP');
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(container[probe]);
  const lifecycle = objectAt(container, 'lifecycle');
  if (lifecycle) for (const hook of ['postStart', 'preStop']) defaultHTTPGet(objectAt(lifecycle, hook)?.httpGet);
  for (const env of objectsAt(container, 'env')) defaultFieldRef(objectAt(env, 'valueFrom')?.fieldRef);
}

// A volume's sources in the order upstream's validateVolumeSource looks at them: the first
// one present is checked, each other one is forbidden under the path named here (upstream
// names cephfs `cephFS` and downwardAPI `downwarAPI` there).
const volumeSourceOrder: readonly (readonly [source: string, forbiddenAt: string])[] = [
  ['emptyDir', 'emptyDir'], ['hostPath', 'hostPath'], ['gitRepo', 'gitRepo'], ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'], ['secret', 'secret'], ['nfs', 'nfs'], ['iscsi', 'iscsi'], ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'], ['persistentVolumeClaim', 'persistentVolumeClaim'], ['rbd', 'rbd'], ['cinder', 'cinder'], ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'], ['downwardAPI', 'downwarAPI'], ['fc', 'fc'], ['flexVolume', 'flexVolume'], ['configMap', 'configMap'],
  ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['storageos', 'storageos'], ['projected', 'projected'],
  ['scaleIO', 'scaleIO'], ['csi', 'csi'], ['ephemeral', 'ephemeral'], ['image', 'image'],
];
const volumeSources = volumeSourceOrder.map(([source]) => source);

// 0644, upstream's default mode for secret, configMap, downwardAPI and projected volumes.
const defaultVolumeMode = 420;

function defaultVolume(volume: JsonObject): void {
  if (!volumeSources.some((s) => present(volume[s]))) volume.emptyDir = {};
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const v = objectAt(volume, source);
    if (v) setDefault(v, 'defaultMode', defaultVolumeMode);
  }
  for (const item of objectsAt(objectAt(volume, 'downwardAPI'), 'items')) defaultFieldRef(item.fieldRef);
  for (const source of objectsAt(objectAt(volume, 'projected'), 'sources')) {
    const token = objectAt(source, 'serviceAccountToken');
    if (token) setDefault(token, 'expirationSeconds', 3600);
    for (const item of objectsAt(objectAt(source, 'downwardAPI'), 'items')) defaultFieldRef(item.fieldRef);
  }
  const hostPath = objectAt(volume, 'hostPath');
  if (hostPath && hostPath.type === undefined) hostPath.type = '';
  // An image volume pulls as a container does: always for `latest`, else if not present.
  const image = objectAt(volume, 'image');
  if (image && !image.pullPolicy) image.pullPolicy = imageTag(stringAt(image, 'reference')) === 'latest' ? 'Always' : 'IfNotPresent';
  // An ephemeral volume's claim template is defaulted as a claim's spec is (SetDefaults_PersistentVolumeClaimSpec).
  const claimSpec = objectAt(objectAt(objectAt(volume, 'ephemeral'), 'volumeClaimTemplate'), 'spec');
  if (claimSpec) setDefault(claimSpec, 'volumeMode', 'Filesystem');
}

/** SetDefaults_PodSpec and what it holds; applies to pods and pod templates alike. */
export function defaultPodSpec(spec: JsonObject): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  defaultEmptyObject(spec, 'securityContext');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const container of objectsAt(spec, list)) defaultContainer(container);
  }
  for (const volume of objectsAt(spec, 'volumes')) defaultVolume(volume);
  mirrorDeprecatedServiceAccount(spec);
}

/**
 * v1's deprecated serviceAccount is another name for serviceAccountName: the one given
 * fills the other, and it always shows the same value (upstream's PodSpec conversion).
 */
function mirrorDeprecatedServiceAccount(spec: JsonObject): void {
  if ((spec.serviceAccountName === undefined || spec.serviceAccountName === null || spec.serviceAccountName === '') && typeof spec.serviceAccount === 'string') {
    spec.serviceAccountName = spec.serviceAccount;
  }
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/** SetDefaults_Pod: what only Pods (not templates) get. */
export function defaultPodOnly(spec: JsonObject): void {
  for (const list of ['containers', 'initContainers']) {
    for (const container of objectsAt(spec, list)) {
      // Requests default to limits where only limits are given.
      const resources = objectAt(container, 'resources');
      const limits = objectAt(resources, 'limits');
      if (resources && limits) {
        const requests = ensureObject(resources, 'requests');
        for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
      }
    }
  }
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork === true) {
    for (const list of ['containers', 'initContainers']) {
      for (const container of objectsAt(spec, list)) {
        for (const port of objectsAt(container, 'ports')) {
          if (!port.hostPort) port.hostPort = port.containerPort;
        }
      }
    }
  }
}

/** A pod template's metadata and spec defaults. */
export function defaultPodTemplate(template: JsonObject): void {
  defaultEmptyObject(template, 'metadata');
  defaultPodSpec(ensureObject(template, 'spec'));
}

// ---------- QoS ----------

const qosResources = ['cpu', 'memory'];

type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** One resource's shape in a set of requirements: request and limit equal and set, equal and unset, or not equal. */
function resourceQOS(requests: JsonObject, limits: JsonObject, name: string): QOSClass {
  const request = parseQuantity(requests[name]) ?? zeroQuantity;
  const limit = parseQuantity(limits[name]) ?? zeroQuantity;
  if (compareQuantity(request, limit) !== 0) return 'Burstable';
  return isZero(request) ? 'BestEffort' : 'Guaranteed';
}

/** The QoS of one set of requirements (a container's, or the pod-level ones): cpu and memory must agree. */
function requirementsQOS(resources: unknown): QOSClass {
  const requests = objectAt(resources, 'requests') ?? {};
  const limits = objectAt(resources, 'limits') ?? {};
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return 'BestEffort';
  const [first, ...rest] = qosResources.map((name) => resourceQOS(requests, limits, name));
  return rest.every((q) => q === first) ? first! : 'Burstable';
}

/**
 * The QoS class upstream computes for a pod (pkg/apis/core/helper/qos ComputePodQOS):
 * from the pod-level resources when the spec has them, else every container agrees
 * (all Guaranteed, all BestEffort) or the pod is Burstable.
 */
export function podQOSClass(spec: JsonObject): QOSClass {
  if (isObject(spec.resources)) return requirementsQOS(spec.resources);
  let pod: QOSClass | undefined;
  for (const container of [...objectsAt(spec, 'initContainers'), ...objectsAt(spec, 'containers')]) {
    const qos = requirementsQOS(container.resources);
    if (qos === 'Burstable' || (pod !== undefined && pod !== qos)) return 'Burstable';
    pod = qos;
  }
  return pod ?? 'BestEffort';
}

// ---------- validation ----------

const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];

export function validateProtocol(protocol: unknown, path: FieldPath): StatusCause[] {
  if (protocol === undefined || protocol === null || protocol === '') return [required(path)];
  if (!supportedPortProtocols.includes(String(protocol))) return [notSupported(path, protocol, supportedPortProtocols)];
  return [];
}

function validateContainerPorts(ports: unknown[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const port = isObject(raw) ? raw : {};
    const p = index(path, i);
    const name = stringAt(port, 'name');
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const msg of msgs) causes.push(invalid(child(p, 'name'), name, msg));
      else if (names.has(name)) causes.push(duplicate(child(p, 'name'), name));
      else names.add(name);
    }
    const containerPort = port.containerPort;
    if (containerPort === undefined || containerPort === null || containerPort === 0) causes.push(required(child(p, 'containerPort')));
    else for (const msg of isValidPortNum(Number(containerPort))) causes.push(invalid(child(p, 'containerPort'), containerPort, msg));
    if (port.hostPort !== undefined && port.hostPort !== null && port.hostPort !== 0) {
      for (const msg of isValidPortNum(Number(port.hostPort))) causes.push(invalid(child(p, 'hostPort'), port.hostPort, msg));
    }
    appendAll(causes, validateProtocol(port.protocol, child(p, 'protocol')));
  });
  return causes;
}

function validateEnv(env: unknown[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  env.forEach((raw, i) => {
    const ev = isObject(raw) ? raw : {};
    const p = index(path, i);
    const name = stringAt(ev, 'name');
    if (name === '') causes.push(required(child(p, 'name')));
    // RelaxedEnvironmentVariableValidation (on by default since 1.32).
    if (name === '') causes.push(invalid(child(p, 'name'), name, 'environment variable name must be non-empty'));
    else if (!/^[\x20-\x3c\x3e-\x7e]*$/.test(name)) {
      causes.push(invalid(child(p, 'name'), name, "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    }
    const valueFrom = objectAt(ev, 'valueFrom');
    if (valueFrom) {
      const sources = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'].filter((s) => isObject(valueFrom[s]));
      const vp = child(p, 'valueFrom');
      if (stringAt(ev, 'value') !== '') causes.push(invalid(vp, '', 'may not be specified when `value` is not empty'));
      if (sources.length === 0) {
        causes.push(invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
      } else if (sources.length > 1) {
        causes.push(invalid(vp, '', 'may not have more than one field specified at a time'));
      }
      for (const ref of ['configMapKeyRef', 'secretKeyRef']) {
        const r = objectAt(valueFrom, ref);
        if (r && stringAt(r, 'key') === '') causes.push(required(child(vp, ref, 'key')));
      }
      const fieldRef = objectAt(valueFrom, 'fieldRef');
      if (fieldRef && stringAt(fieldRef, 'fieldPath') === '') causes.push(required(child(vp, 'fieldRef', 'fieldPath')));
    }
  });
  return causes;
}

/** The volumes a pod spec declares, by name (valid ones), and which of them are claims (a PersistentVolumeClaim or an ephemeral one). */
interface PodVolumes {
  names: Set<string>;
  claims: Set<string>;
}

/** A container's mounts or devices by volume name, the last one of a name kept (GetVolumeMountMap, GetVolumeDeviceMap). */
function pathsByName(list: unknown[], pathField: string): Map<string, string> {
  const byName = new Map<string, string>();
  for (const raw of list) {
    const item = isObject(raw) ? raw : {};
    byName.set(stringAt(item, 'name'), stringAt(item, pathField));
  }
  return byName;
}

function validateVolumeMounts(mounts: unknown[], devices: Map<string, string>, volumes: PodVolumes, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const mountPaths = new Set<string>();
  const devicePaths = new Set(devices.values());
  mounts.forEach((raw, i) => {
    const mount = isObject(raw) ? raw : {};
    const p = index(path, i);
    const name = stringAt(mount, 'name');
    if (name === '') causes.push(required(child(p, 'name')));
    if (!volumes.names.has(name)) causes.push(notFound(child(p, 'name'), name));
    const mountPath = stringAt(mount, 'mountPath');
    if (mountPath === '') causes.push(required(child(p, 'mountPath')));
    if (mountPaths.has(mountPath)) causes.push(invalid(child(p, 'mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (devices.has(name)) causes.push(invalid(child(p, 'name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) causes.push(invalid(child(p, 'mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
  });
  return causes;
}

/** ValidateVolumeDevices: raw block devices of claimed volumes, at unique paths without backsteps, apart from the mounts. */
function validateVolumeDevices(devices: unknown[], mounts: Map<string, string>, volumes: PodVolumes, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  const devicePaths = new Set<string>();
  const mountPaths = new Set(mounts.values());
  devices.forEach((raw, i) => {
    const device = isObject(raw) ? raw : {};
    const p = index(path, i);
    const name = stringAt(device, 'name');
    const devicePath = stringAt(device, 'devicePath');
    if (name === '') causes.push(required(child(p, 'name')));
    if (names.has(name)) causes.push(invalid(child(p, 'name'), name, 'must be unique'));
    if (volumes.names.has(name) && !volumes.claims.has(name)) {
      causes.push(invalid(child(p, 'name'), name, 'can only use volume source type of PersistentVolumeClaim for block mode'));
    }
    if (!volumes.names.has(name)) causes.push(notFound(child(p, 'name'), name));
    if (devicePath === '') causes.push(required(child(p, 'devicePath')));
    if (devicePaths.has(devicePath)) causes.push(invalid(child(p, 'devicePath'), devicePath, 'must be unique'));
    if (devicePath !== '' && hasBackstep(devicePath)) causes.push(invalid(child(p, 'devicePath'), devicePath, "can not contain backsteps ('..')"));
    else devicePaths.add(devicePath);
    if (mounts.has(name)) causes.push(invalid(child(p, 'name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) causes.push(invalid(child(p, 'devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    if (name !== '') names.add(name);
  });
  return causes;
}

function validateResources(resources: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const limits = objectAt(resources, 'limits') ?? {};
  const requests = objectAt(resources, 'requests') ?? {};
  for (const [name, raw] of Object.entries(limits)) {
    const q = parseQuantity(raw);
    if (q !== undefined && isNegative(q)) causes.push(invalid(key(child(path, 'limits'), name), String(raw), 'must be greater than or equal to 0'));
  }
  const requestsPath = child(path, 'requests');
  for (const [name, raw] of Object.entries(requests)) {
    const q = parseQuantity(raw);
    if (q === undefined) continue;
    if (isNegative(q)) causes.push(invalid(key(requestsPath, name), String(raw), 'must be greater than or equal to 0'));
    const limitRaw = limits[name];
    const limit = parseQuantity(limitRaw);
    if (limit === undefined) continue;
    // Only native resources other than huge pages may be overcommitted (IsOvercommitAllowed).
    const overcommitAllowed = (!name.includes('/') || name.includes('kubernetes.io/')) && !name.startsWith('hugepages-');
    if (!overcommitAllowed && compareQuantity(q, limit) !== 0) {
      causes.push(invalid(requestsPath, String(raw), `must be equal to ${name} limit of ${String(limitRaw)}`));
    } else if (compareQuantity(q, limit) > 0) {
      causes.push(invalid(requestsPath, String(raw), `must be less than or equal to ${name} limit of ${String(limitRaw)}`));
    }
  }
  return causes;
}

function validatePullPolicy(policy: unknown, path: FieldPath): StatusCause[] {
  const valid = ['Always', 'IfNotPresent', 'Never'];
  if (policy === undefined || policy === null || policy === '') return [required(path)];
  return valid.includes(String(policy)) ? [] : [notSupported(path, policy, valid)];
}

function validateContainer(container: JsonObject, volumes: PodVolumes, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringAt(container, 'name');
  if (name === '') causes.push(required(child(path, 'name')));
  else for (const msg of isDNS1123Label(name)) causes.push(invalid(child(path, 'name'), name, msg));
  if (stringAt(container, 'image') === '') causes.push(required(child(path, 'image')));
  const policy = container.terminationMessagePolicy;
  if (policy === undefined || policy === null || policy === '') causes.push(required(child(path, 'terminationMessagePolicy')));
  else if (policy !== 'File' && policy !== 'FallbackToLogsOnError') {
    causes.push(notSupported(child(path, 'terminationMessagePolicy'), policy, ['File', 'FallbackToLogsOnError']));
  }
  appendAll(causes, validateContainerPorts(arrayAt(container, 'ports'), child(path, 'ports')));
  appendAll(causes, validateEnv(arrayAt(container, 'env'), child(path, 'env')));
  const mounts = arrayAt(container, 'volumeMounts');
  const devices = arrayAt(container, 'volumeDevices');
  appendAll(causes, validateVolumeMounts(mounts, pathsByName(devices, 'devicePath'), volumes, child(path, 'volumeMounts')));
  appendAll(causes, validateVolumeDevices(devices, pathsByName(mounts, 'mountPath'), volumes, child(path, 'volumeDevices')));
  appendAll(causes, validatePullPolicy(container.imagePullPolicy, child(path, 'imagePullPolicy')));
  appendAll(causes, validateResources(container.resources, child(path, 'resources')));
  return causes;
}

/**
 * Upstream's ValidateVolumes: each volume's source (the first present, in upstream's order),
 * then its name. A volume with any error is left out of the names mounts and devices may
 * use (they are then not found), as upstream leaves it out; a claim may not be one the
 * Pod's own ephemeral volumes create.
 */
function validateVolumes(volumes: unknown[], path: FieldPath, pod: VolumeSourceContext): { causes: StatusCause[]; volumes: PodVolumes } {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  const claims = new Set<string>();
  const objects = volumes.map((raw) => (isObject(raw) ? raw : {}));
  const podName = pod.podName ?? '';
  const createdClaims = new Set(podName === '' ? [] : objects.filter((v) => present(v.ephemeral)).map((v) => `${podName}-${stringAt(v, 'name')}`));
  objects.forEach((volume, i) => {
    const p = index(path, i);
    const errors: StatusCause[] = [];
    const sources = volumeSourceOrder.filter(([source]) => present(volume[source]));
    sources.forEach(([source, forbiddenAt], n) => {
      if (n > 0) errors.push(forbidden(child(p, forbiddenAt), 'may not specify more than 1 volume type'));
      else appendAll(errors, namedSourceCauses(volume, source, p), validateVolumeSource(volume, source, p, pod));
    });
    if (sources.length === 0) errors.push(required(p, 'must specify a volume type'));
    const name = stringAt(volume, 'name');
    if (name === '') errors.push(required(child(p, 'name')));
    else for (const msg of isDNS1123Label(name)) errors.push(invalid(child(p, 'name'), name, msg));
    if (names.has(name)) errors.push(duplicate(child(p, 'name'), name));
    if (errors.length === 0) {
      names.add(name);
      if (present(volume.persistentVolumeClaim) || present(volume.ephemeral)) claims.add(name);
    }
    appendAll(causes, errors);
    const claimName = stringAt(objectAt(volume, 'persistentVolumeClaim'), 'claimName');
    if (createdClaims.has(claimName)) {
      causes.push(invalid(child(p, 'persistentVolumeClaim', 'claimName'), claimName, 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { causes, volumes: { names, claims } };
}


/** What a secret, config map, claim or host path volume names and a file source's default mode, checked before the rest of its source. */
function namedSourceCauses(volume: JsonObject, source: string, p: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const named = objectAt(volume, source) ?? {};
  const nameField = ({ secret: 'secretName', configMap: 'name', persistentVolumeClaim: 'claimName', hostPath: 'path' } as Record<string, string>)[source];
  if (nameField !== undefined && stringAt(named, nameField) === '') causes.push(required(child(p, source, nameField)));
  const mode = ['secret', 'configMap', 'downwardAPI', 'projected'].includes(source) ? numberAt(named, 'defaultMode') : undefined;
  if (mode !== undefined && (mode < 0 || mode > 0o777)) {
    causes.push(invalid(child(p, source, 'defaultMode'), mode, 'must be a number between 0 and 0777 (octal), both inclusive'));
  }
  return causes;
}

export interface PodSpecOptions {
  /** A Pod (true) rather than a pod template: containers' images may not have surrounding whitespace, image volumes name their image. */
  isPod: boolean;
  /** A Pod's name: its ephemeral volumes' claims are named "<pod>-<volume>". */
  podName?: string;
  /** The spec before an update already had a non-sidecar init container resized by RestartContainer: it may stay (upstream ratchets). */
  keepsInitRestartContainer?: boolean;
}

const resizeResources = ['cpu', 'memory'];
const resizeRestartPolicies = ['NotRequired', 'RestartContainer'];

/** Upstream's validateResizePolicy: cpu and memory once each, a known restart policy, none but NotRequired in a pod that never restarts. */
function validateResizePolicy(policies: unknown[], path: FieldPath, podRestartPolicy: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  policies.forEach((raw, i) => {
    const policy = isObject(raw) ? raw : {};
    const resource = stringAt(policy, 'resourceName');
    if (seen.has(resource)) causes.push(duplicate(index(path, i), resource));
    seen.add(resource);
    if (resource === '') causes.push(required(path, ''));
    else if (!resizeResources.includes(resource)) causes.push(notSupported(path, resource, resizeResources));
    const restart = stringAt(policy, 'restartPolicy');
    if (restart === '') causes.push(required(path, ''));
    else if (!resizeRestartPolicies.includes(restart)) causes.push(notSupported(path, restart, resizeRestartPolicies));
    if (podRestartPolicy === 'Never' && restart !== 'NotRequired') causes.push(invalid(path, restart, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"));
  });
  return causes;
}

/** What an ephemeral container may not set, in the order of upstream's EphemeralContainerCommon (its allowedEphemeralContainerFields, inverted). */
const ephemeralForbiddenFields = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'restartPolicyRules', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** Whether a decoded field differs from Go's zero value (validateFieldAllowList): a list or pointer even when empty, resources when any of its lists or maps is there. */
function setInGo(field: string, value: unknown): boolean {
  if (!present(value)) return false;
  return field !== 'resources' || (isObject(value) && Object.values(value).some(present));
}

/**
 * Upstream's validateEphemeralContainers: each checked as any container
 * (validateContainerCommon and the pod's image rule), its name unique among all
 * containers, its target one of the pod's other containers, nothing set that
 * ephemeral containers may not have, no subPath mounts.
 */
function validateEphemeralContainers(s: JsonObject, volumes: PodVolumes, hostUsers: boolean, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const others = new Set([...objectsAt(s, 'containers'), ...objectsAt(s, 'initContainers')].map((c) => stringAt(c, 'name')));
  const names = new Set(others);
  arrayAt(s, 'ephemeralContainers').forEach((raw, i) => {
    const container = isObject(raw) ? raw : {};
    const p = index(path, i);
    appendAll(causes, validateContainer(container, volumes, p));
    appendAll(causes, validateResizePolicy(arrayAt(container, 'resizePolicy'), child(p, 'resizePolicy'), s.restartPolicy));
    appendAll(causes, validateContainerSecurityContext(container, hostUsers, child(p, 'securityContext')));
    const image = stringAt(container, 'image');
    if (image.trim().length !== image.length) causes.push(invalid(child(p, 'image'), image, 'must not have leading or trailing whitespace'));
    const name = stringAt(container, 'name');
    if (names.has(name)) causes.push(duplicate(child(p, 'name'), name));
    else names.add(name);
    const target = stringAt(container, 'targetContainerName');
    if (target !== '' && !others.has(target)) causes.push(notFound(child(p, 'targetContainerName'), target));
    for (const field of ephemeralForbiddenFields) {
      if (setInGo(field, container[field])) causes.push(forbidden(child(p, field), 'cannot be set for an Ephemeral Container'));
    }
    objectsAt(container, 'volumeMounts').forEach((mount, j) => {
      for (const field of ['subPath', 'subPathExpr']) {
        if (stringAt(mount, field) !== '') causes.push(forbidden(child(index(child(p, 'volumeMounts'), j), field), 'cannot be set for an Ephemeral Container'));
      }
    });
  });
  return causes;
}

/** Upstream's ValidatePodSpec, for the rules clients observe; `path` is "spec" or "spec.template.spec". */
export function validatePodSpec(spec: unknown, path: FieldPath, opts: PodSpecOptions): StatusCause[] {
  const s = isObject(spec) ? spec : {};
  const { causes, volumes } = validateVolumes(arrayAt(s, 'volumes'), child(path, 'volumes'), { isPod: opts.isPod, ...(opts.podName === undefined ? {} : { podName: opts.podName }) });

  const containerNames = new Set<string>();
  const containers = arrayAt(s, 'containers');
  const containersPath = child(path, 'containers');
  if (containers.length === 0) causes.push(required(containersPath));
  const gracePeriod = numberAt(s, 'terminationGracePeriodSeconds');
  const checkContainers = (list: unknown[], listPath: FieldPath, init: boolean) => {
    list.forEach((raw, i) => {
      const container = isObject(raw) ? raw : {};
      const p = index(listPath, i);
      appendAll(causes, validateContainer(container, volumes, p));
      appendAll(causes, validateResizePolicy(arrayAt(container, 'resizePolicy'), child(p, 'resizePolicy'), s.restartPolicy));
      if (init && container.restartPolicy !== 'Always' && !opts.keepsInitRestartContainer) {
        objectsAt(container, 'resizePolicy').forEach((policy, j) => {
          if (policy.restartPolicy === 'RestartContainer') {
            causes.push(invalid(child(index(child(p, 'resizePolicy'), j), 'restartPolicy'), 'RestartContainer', "must not be set to 'RestartContainer' for non-sidecar initContainers"));
          }
        });
      }
      appendAll(causes, validateContainerProbes(container, init, gracePeriod, p));
      // The host's user namespace unless hostUsers is false.
      appendAll(causes, validateContainerSecurityContext(container, s.hostUsers !== false, child(p, 'securityContext')));
      const name = stringAt(container, 'name');
      if (name !== '') {
        if (containerNames.has(name)) causes.push(duplicate(child(p, 'name'), name));
        else containerNames.add(name);
      }
      const image = stringAt(container, 'image');
      if (opts.isPod && image.trim().length !== image.length) {
        causes.push(invalid(child(p, 'image'), image, 'must not have leading or trailing whitespace'));
      }
    });
  };
  checkContainers(containers, containersPath, false);
  checkContainers(arrayAt(s, 'initContainers'), child(path, 'initContainers'), true);
  appendAll(causes, validateEphemeralContainers(s, volumes, s.hostUsers !== false, child(path, 'ephemeralContainers')));

  const restartPolicy = s.restartPolicy;
  const restartPolicies = ['Always', 'OnFailure', 'Never'];
  if (restartPolicy === undefined || restartPolicy === null || restartPolicy === '') causes.push(required(child(path, 'restartPolicy')));
  else if (!restartPolicies.includes(String(restartPolicy))) causes.push(notSupported(child(path, 'restartPolicy'), restartPolicy, restartPolicies));

  const dnsPolicy = s.dnsPolicy;
  const dnsPolicies = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];
  if (dnsPolicy === undefined || dnsPolicy === null || dnsPolicy === '') causes.push(required(child(path, 'dnsPolicy')));
  else if (!dnsPolicies.includes(String(dnsPolicy))) causes.push(notSupported(child(path, 'dnsPolicy'), dnsPolicy, dnsPolicies));

  appendAll(causes, validateLabels(s.nodeSelector, child(path, 'nodeSelector')));

  const serviceAccountName = stringAt(s, 'serviceAccountName');
  if (serviceAccountName !== '') {
    for (const msg of isDNS1123Subdomain(serviceAccountName)) causes.push(invalid(child(path, 'serviceAccountName'), serviceAccountName, msg));
  }
  const nodeName = stringAt(s, 'nodeName');
  if (nodeName !== '') for (const msg of isDNS1123Subdomain(nodeName)) causes.push(invalid(child(path, 'nodeName'), nodeName, msg));
  const activeDeadlineSeconds = numberAt(s, 'activeDeadlineSeconds');
  if (activeDeadlineSeconds !== undefined && (activeDeadlineSeconds < 1 || activeDeadlineSeconds > 2147483647)) {
    causes.push(invalid(child(path, 'activeDeadlineSeconds'), activeDeadlineSeconds, inclusiveRangeError(1, 2147483647)));
  }
  for (const field of ['hostname', 'subdomain']) {
    const value = stringAt(s, field);
    if (value !== '') for (const msg of isDNS1123Label(value)) causes.push(invalid(child(path, field), value, msg));
  }
  appendAll(causes, validateTolerations(arrayAt(s, 'tolerations'), child(path, 'tolerations')));
  appendAll(causes, validatePodSecurityContext(s, child(path, 'securityContext')));
  appendAll(causes, validateAffinity(s.affinity, child(path, 'affinity')));
  appendAll(causes, validateTopologySpreadConstraints(arrayAt(s, 'topologySpreadConstraints'), child(path, 'topologySpreadConstraints')));
  appendAll(causes, validateHostProcessPod(s, path), validateHostUsers(s, path));
  appendAll(causes, validatePodExtras(s, path));
  return causes;
}

// Upstream's MaxDNSSearchPaths and MaxDNSSearchListChars: the expanded limits (ExpandedDNSConfig, GA).
const maxDNSSearchPaths = 32;
const maxDNSSearchListChars = 2048;

/**
 * validatePodDNSConfig: what dnsPolicy None needs, at most 3 nameservers that are IPs, search
 * domains within upstream's limits, named options. The nameservers and host aliases' IPs
 * are legacy fields checked strictly (StrictIPCIDRValidation, on in v1.36), with no earlier
 * values let through: upstream passes none, these fields being immutable in a Pod.
 */
function validateDNSConfig(s: JsonObject, path: FieldPath): StatusCause[] {
  const config = objectAt(s, 'dnsConfig');
  const nameservers = arrayAt(config, 'nameservers');
  if (s.dnsPolicy === 'None') {
    if (config === undefined) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (nameservers.length === 0) return [required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (config === undefined) return [];
  const causes: StatusCause[] = [];
  if (nameservers.length > 3) causes.push(invalid(child(path, 'nameservers'), nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => {
    appendAll(causes, legacyIPCauses(index(child(path, 'nameservers'), i), String(ns)));
  });
  const searches = arrayAt(config, 'searches').map(String);
  const searchesPath = child(path, 'searches');
  if (searches.length > maxDNSSearchPaths) causes.push(invalid(searchesPath, searches, `must not have more than ${maxDNSSearchPaths} search paths`));
  // The limit counts the spaces that join the domains in resolv.conf.
  if (Buffer.byteLength(searches.join(' ')) > maxDNSSearchListChars) {
    causes.push(invalid(searchesPath, searches, `must not have more than ${maxDNSSearchListChars} characters (including spaces) in the search list`));
  }
  searches.forEach((search, i) => {
    // RelaxedDNSSearchValidation (GA, locked on): a lone "." is accepted, underscores too,
    // and a trailing dot is dropped before the check.
    if (search === '.') return;
    const domain = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const msg of isDNS1123SubdomainWithUnderscore(domain)) causes.push(invalid(index(searchesPath, i), domain, msg));
  });
  arrayAt(config, 'options').forEach((option, i) => {
    if (stringAt(isObject(option) ? option : {}, 'name') === '') causes.push(required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return causes;
}

/** Host aliases, readiness and scheduling gates, DNS config and the OS, as upstream's ValidatePodSpec. */
function validatePodExtras(s: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  arrayAt(s, 'hostAliases').forEach((raw, i) => {
    const alias = isObject(raw) ? raw : {};
    const p = index(child(path, 'hostAliases'), i);
    const ip = stringAt(alias, 'ip');
    appendAll(causes, legacyIPCauses(child(p, 'ip'), ip));
    arrayAt(alias, 'hostnames').forEach((hostname, j) => {
      for (const msg of isDNS1123Subdomain(String(hostname))) causes.push(invalid(index(child(p, 'hostnames'), j), String(hostname), msg));
    });
  });
  arrayAt(s, 'readinessGates').forEach((raw, i) => {
    const conditionType = stringAt(isObject(raw) ? raw : {}, 'conditionType');
    for (const msg of isQualifiedName(conditionType)) causes.push(invalid(child(index(child(path, 'readinessGates'), i), 'conditionType'), conditionType, msg));
  });
  const gates = new Set<string>();
  arrayAt(s, 'schedulingGates').forEach((raw, i) => {
    const name = stringAt(isObject(raw) ? raw : {}, 'name');
    const p = index(child(path, 'schedulingGates'), i);
    for (const msg of isQualifiedName(name)) causes.push(invalid(p, name, msg));
    if (gates.has(name)) causes.push(duplicate(p, name));
    gates.add(name);
  });
  appendAll(causes, validateDNSConfig(s, child(path, 'dnsConfig')));
  const os = objectAt(s, 'os');
  if (os !== undefined) {
    const name = stringAt(os, 'name');
    if (name === '') causes.push(required(child(path, 'os', 'name'), 'cannot be empty'));
    else if (name !== 'linux' && name !== 'windows') causes.push(notSupported(child(path, 'os'), name, ['linux', 'windows']));
    else appendAll(causes, validateForOS(s, name, path));
  }
  return causes;
}

/**
 * Upstream's ValidatePodTemplateSpec; `path` is e.g. "spec.template", `old` the template
 * an update replaces (undefined on create), whose invalid deletion cost may stay.
 */
export function validatePodTemplateSpec(template: unknown, path: FieldPath, old?: unknown): StatusCause[] {
  const t = isObject(template) ? template : {};
  const meta = objectAt(t, 'metadata') ?? {};
  const causes: StatusCause[] = [];
  appendAll(causes, validateLabels(meta.labels, child(path, 'labels')));
  appendAll(causes, validateAnnotations(meta.annotations, child(path, 'annotations')));
  appendAll(causes, validatePodSpecificAnnotations((meta.annotations ?? {}) as Record<string, string>, objectAt(t, 'spec') ?? {}, child(path, 'annotations'), keepsInvalidDeletionCost(old)));
  appendAll(causes, validatePodSpec(t.spec, child(path, 'spec'), { isPod: false }));
  appendAll(causes, validateSecurityAnnotationsMatchFields((meta.annotations ?? {}) as Record<string, string>, objectAt(t, 'spec') ?? {}, child(path, 'spec')));
  if (arrayAt(t.spec, 'ephemeralContainers').length > 0) {
    causes.push(forbidden(child(path, 'spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return causes;
}
