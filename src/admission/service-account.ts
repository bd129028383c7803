// ServiceAccount admission: pods run as an account that exists, `default` when they name none.
import { forbidden, type KubeObject } from '../api/index.ts';
import type { AdmissionPlugin } from './chain.ts';

/** The account a pod runs as when it names none. */
const defaultServiceAccountName = 'default';

/** How often, and how long apart, a missing "default" account is looked up again: the controller may be about to make it. */
const defaultAccountAttempts = 10;
const retryIntervalMs = () => 100 + Math.floor(Math.random() * 100);

export interface ServiceAccountLookup {
  /** The service account, or undefined when it does not exist. */
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
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
 * exist (403 otherwise). The token volume upstream also mounts is not added: Plinth runs
 * no token controller and no kubelet reads it.
 */
export function serviceAccountAdmission(accounts: ServiceAccountLookup, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    admit(attrs) {
      if (!isPodCreate(attrs) || attrs.object === undefined || isMirrorPod(attrs.object)) return;
      const spec = (attrs.object.spec ??= {}) as { serviceAccountName?: string; serviceAccount?: string };
      if (spec.serviceAccountName === undefined || spec.serviceAccountName === '') {
        spec.serviceAccountName = defaultServiceAccountName;
        // v1 shows the deprecated serviceAccount field with the same value.
        spec.serviceAccount = defaultServiceAccountName;
      }
    },
    async validate(attrs) {
      if (!isPodCreate(attrs) || attrs.object === undefined || isMirrorPod(attrs.object)) return;
      const name = (attrs.object.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName;
      if (name === undefined || name === '') return;
      const attempts = name === defaultServiceAccountName ? defaultAccountAttempts : 1;
      for (let i = 0; i < attempts; i++) {
        if (i > 0) await sleep(retryIntervalMs());
        if ((await accounts.get(attrs.namespace, name)) !== undefined) return;
      }
      throw forbidden(`pods "${attrs.name}" is forbidden: error looking up service account ${attrs.namespace}/${name}: serviceaccount "${name}" not found`);
    },
  };
}
