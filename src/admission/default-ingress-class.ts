// DefaultIngressClass admission (upstream's plugin/pkg/admission/network/defaultingressclass,
// on by default): an Ingress created without spec.ingressClassName, nor the older
// `kubernetes.io/ingress.class` annotation, gets the default IngressClass's name.
import type { KubeObject } from '../api/index.ts';
import { unless, type AdmissionPlugin } from './chain.ts';
import { newestDefault } from './default-storage-class.ts';

const defaultClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';
const legacyClassAnnotation = 'kubernetes.io/ingress.class';

export function defaultIngressClass(classes: KubeObject[]): KubeObject | undefined {
  return newestDefault(classes, (c) => c.metadata.annotations?.[defaultClassAnnotation] === 'true');
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
