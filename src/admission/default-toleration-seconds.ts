// DefaultTolerationSeconds admission (upstream's plugin/pkg/admission/defaulttolerationseconds,
// on by default): a pod created or updated without a NoExecute toleration of the
// not-ready and unreachable node taints gets one for 300 seconds each (upstream's
// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`), so
// its pods are evicted five minutes after their node is lost rather than at once.
import { isObject } from '../api/json.ts';
import type { AdmissionPlugin } from './chain.ts';

const notReady = 'node.kubernetes.io/not-ready';
const unreachable = 'node.kubernetes.io/unreachable';
const defaultSeconds = 300;

/** How long a pod tolerates its node being not ready, and unreachable, unless it says. */
export interface DefaultTolerations {
  notReadySeconds?: number;
  unreachableSeconds?: number;
}

/** Whether a toleration tolerates the NoExecute taint `key` (an empty key or effect tolerates any). */
function tolerates(toleration: unknown, key: string): boolean {
  if (!isObject(toleration)) return false;
  const tKey = toleration.key ?? '';
  const effect = toleration.effect ?? '';
  return (tKey === key || tKey === '') && (effect === 'NoExecute' || effect === '');
}

export function defaultTolerationSeconds(tolerations: DefaultTolerations = {}): AdmissionPlugin {
  const seconds: Record<string, number> = {
    [notReady]: tolerations.notReadySeconds ?? defaultSeconds,
    [unreachable]: tolerations.unreachableSeconds ?? defaultSeconds,
  };
  return {
    name: 'DefaultTolerationSeconds',
    admit(attrs) {
      if (attrs.operation === 'DELETE' || attrs.group !== '' || attrs.resource !== 'pods' || attrs.subresource !== '' || attrs.object === undefined) return;
      const spec = (attrs.object.spec ??= {}) as { tolerations?: unknown };
      const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      const added = [notReady, unreachable]
        .filter((key) => !tolerations.some((t) => tolerates(t, key)))
        // Go's field order: key, operator, value, effect, tolerationSeconds.
        .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds[key]! }));
      if (added.length > 0) spec.tolerations = [...tolerations, ...added];
    },
  };
}
