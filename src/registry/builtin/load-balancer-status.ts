// status.loadBalancer.ingress of Services and Ingresses: what upstream's
// ValidateLoadBalancerStatus and ValidateIngressLoadBalancerStatus check of each entry
// (the IP a legacy field, the hostname a DNS name), and the warnings their status
// strategies give of the IPs.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { appendAll, child, index, invalid } from '../validation/field.ts';
import { isDNS1123Subdomain } from '../validation/names.ts';
import { ipWarnings, parseIP } from '../validation/ip.ts';
import { legacyIPCauses } from './legacy-ip-fields.ts';
import { arrayAt, objectAt, stringAt } from './object.ts';

export const loadBalancerIngressPath = 'status.loadBalancer.ingress';

export function loadBalancerIngresses(obj: KubeObject): unknown[] {
  return arrayAt(objectAt(obj.status, 'loadBalancer'), 'ingress');
}

/**
 * Each entry's causes: its IP (the stored object's IPs kept as they are), what `between`
 * adds (a Service's ipMode), its hostname.
 */
export function loadBalancerIngressCauses(obj: KubeObject, old: KubeObject, between: (entry: unknown, path: string) => StatusCause[] = () => []): StatusCause[] {
  const existingIPs = loadBalancerIngresses(old).map((entry) => stringAt(entry, 'ip')).filter((ip) => ip !== '');
  return loadBalancerIngresses(obj).flatMap((entry, i) => {
    const path = index(loadBalancerIngressPath, i);
    const ip = stringAt(entry, 'ip');
    const causes = ip === '' ? [] : legacyIPCauses(child(path, 'ip'), ip, existingIPs);
    appendAll(causes, between(entry, path));
    const hostname = stringAt(entry, 'hostname');
    if (hostname !== '') {
      for (const msg of isDNS1123Subdomain(hostname)) causes.push(invalid(child(path, 'hostname'), hostname, msg));
      if (parseIP(hostname) !== undefined) causes.push(invalid(child(path, 'hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
    return causes;
  });
}

/** The status strategies' WarningsOnUpdate: GetWarningsForIP at the entry's path (upstream names no `.ip`). */
export function loadBalancerIngressWarnings(obj: KubeObject): string[] {
  return loadBalancerIngresses(obj).flatMap((entry, i) => {
    const ip = stringAt(entry, 'ip');
    return ip === '' ? [] : ipWarnings(index(loadBalancerIngressPath, i), ip);
  });
}
