// ServiceAccount admission: pods run as an account that exists, `default` when they name none, with its token mounted.
import { randomInt } from 'node:crypto';
import { forbidden, type KubeObject } from '../api/index.ts';
import { unless, type AdmissionPlugin } from './chain.ts';

/** The account a pod runs as when it names none. */
const defaultServiceAccountName = 'default';

/** How often, and how long apart, a missing "default" account is looked up again: the controller may be about to make it. */
const defaultAccountAttempts = 10;
const retryIntervalMs = () => 100 + Math.floor(Math.random() * 100);

export interface ServiceAccountLookup {
  /** The service account, or undefined when it does not exist. */
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
}

/** Where containers find the token, CA and namespace (upstream's DefaultAPITokenMountPath). */
export const tokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The projected volume's name prefix (upstream's ServiceAccountVolumeName); 5 random characters follow. */
const tokenVolumePrefix = 'kube-api-access-';
/** What upstream's kubelets request for projected tokens (WarnOnlyBoundTokenExpirationSeconds). */
const tokenExpirationSeconds = 3607;
/** apimachinery's names.SimpleNameGenerator alphabet: no vowels, no confusable characters. */
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += nameAlphabet[randomInt(nameAlphabet.length)];
  return out;
}

interface Container {
  volumeMounts?: { name?: string; mountPath?: string; readOnly?: boolean }[];
}

interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  volumes?: { name?: string }[];
  containers?: Container[];
  initContainers?: Container[];
}

/**
 * The token volume as upstream mounts it: a `kube-api-access-<5 random>` projected volume
 * (a service-account token for 3607 s at `token`, the kube-root-ca.crt ConfigMap's
 * `ca.crt`, the namespace through the downward API; mode 0644), read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every init container and container
 * that mounts nothing there yet. A volume already named kube-api-access-* is reused.
 */
export function mountServiceAccountToken(spec: PodSpec, suffix = randomSuffix()): void {
  const existing = (spec.volumes ?? []).find((v) => v.name?.startsWith(tokenVolumePrefix));
  const volumeName = existing?.name ?? `${tokenVolumePrefix}${suffix}`;
  let needsVolume = false;
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((container.volumeMounts ?? []).some((m) => m.mountPath === tokenMountPath)) continue;
    (container.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: tokenMountPath });
    needsVolume = true;
  }
  if (existing !== undefined || !needsVolume) return;
  (spec.volumes ??= []).push({
    name: volumeName,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 0o644,
    },
  } as { name: string });
}

/** As upstream's shouldAutomount: the pod's automountServiceAccountToken decides, else the account's (default true). */
function shouldAutomount(account: KubeObject, spec: PodSpec): boolean {
  if (spec.automountServiceAccountToken !== undefined && spec.automountServiceAccountToken !== null) return spec.automountServiceAccountToken;
  return (account as { automountServiceAccountToken?: boolean }).automountServiceAccountToken !== false;
}

function isPodCreate(attrs: { operation: string; group: string; resource: string; subresource: string }): boolean {
  return attrs.operation === 'CREATE' && attrs.group === '' && attrs.resource === 'pods' && attrs.subresource === '';
}

/** Mirror pods (made by a kubelet from a static manifest) are left alone, as upstream. */
function isMirrorPod(pod: KubeObject): boolean {
  return pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;
}

/**
 * Upstream's ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount): a new
 * pod without spec.serviceAccountName runs as "default", and the account it names must
 * exist (403 otherwise), and, unless the pod or the account turns automountServiceAccountToken
 * off, the pod gets upstream's projected token volume (mountServiceAccountToken).
 */
export function serviceAccountAdmission(accounts: ServiceAccountLookup, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): AdmissionPlugin {
  /** The account, waiting a little for a "default" one the controller may be about to make; 403 when it does not exist. */
  async function accountOf(namespace: string, podName: string, name: string): Promise<KubeObject> {
    const attempts = name === defaultServiceAccountName ? defaultAccountAttempts : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(retryIntervalMs());
      const account = await accounts.get(namespace, name);
      if (account !== undefined) return account;
    }
    throw forbidden(`pods "${podName}" is forbidden: error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  }
  return {
    name: 'ServiceAccount',
    admit: unless((attrs) => !isPodCreate(attrs) || attrs.object === undefined || isMirrorPod(attrs.object), async (attrs) => {
      const spec = (attrs.object!.spec ??= {}) as PodSpec;
      if (spec.serviceAccountName === undefined || spec.serviceAccountName === '') {
        spec.serviceAccountName = defaultServiceAccountName;
        // v1 shows the deprecated serviceAccount field with the same value.
        spec.serviceAccount = defaultServiceAccountName;
      }
      // As upstream's Admit: the account must exist, and says whether its token is mounted.
      const account = await accountOf(attrs.namespace, attrs.name, spec.serviceAccountName);
      if (shouldAutomount(account, spec)) mountServiceAccountToken(spec);
    }),
    validate: unless((attrs) => !isPodCreate(attrs) || attrs.object === undefined || isMirrorPod(attrs.object), async (attrs) => {
      const name = (attrs.object!.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName;
      if (name === undefined || name === '') return;
      await accountOf(attrs.namespace, attrs.name, name);
    }),
  };
}
