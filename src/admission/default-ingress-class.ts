// DefaultIngressClass admission (upstream's plugin/pkg/admission/network/defaultingressclass,
// on by default): an Ingress created without spec.ingressClassName, nor the older
// `kubernetes.io/ingress.class` annotation, gets the default IngressClass's name.
import type { KubeObject } from '../api/index.ts';
import { unless, type AdmissionPlugin } from './chain.ts';

const defaultClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';
const legacyClassAnnotation = 'kubernetes.io/ingress.class';

/** The default class: of several, the newest, and of those created in the same second the first by name (upstream's getDefaultClass). */
export function defaultIngressClass(classes: KubeObject[]): KubeObject | undefined {
  return classes.filter((c) => c.metadata.annotations?.[defaultClassAnnotation] === 'true').sort((a, b) =>
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
}

export function defaultIngressClassAdmission(ingressClasses: () => Promise<KubeObject[]>): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    admit: unless((attrs) => attrs.operation !== 'CREATE' || attrs.group !== 'networking.k8s.io' || attrs.resource !== 'ingresses' || attrs.subresource !== '' || attrs.object === undefined, async (attrs) => {
      const ingress = attrs.object!;
      const spec = (ingress.spec ??= {}) as { ingressClassName?: string | null };
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      if (Object.hasOwn(ingress.metadata.annotations ?? {}, legacyClassAnnotation)) return;
      const chosen = defaultIngressClass(await ingressClasses());
      if (chosen !== undefined) spec.ingressClassName = chosen.metadata.name!;
    }),
  };
}
