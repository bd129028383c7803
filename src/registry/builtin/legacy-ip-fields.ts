// IP and CIDR fields that predate strict validation, as causes: core validation's
// IsValidIPForLegacyField and IsValidCIDRForLegacyField (StrictIPCIDRValidation on, its
// v1.36 default; on update the values the old object held are kept as they are), and
// ValidateEndpointIP, which Endpoints, EndpointSlices and Service externalIPs share.

import type { StatusCause } from '../../api/index.ts';
import { invalid } from '../validation/field.ts';
import { cidrForLegacyFieldErrors, ipForLegacyFieldErrors, parseIP } from '../validation/ip.ts';

export function legacyIPCauses(path: string, value: string, validOldIPs: readonly string[] = []): StatusCause[] {
  return ipForLegacyFieldErrors(value, validOldIPs).map((msg) => invalid(path, value, msg));
}

export function legacyCIDRCauses(path: string, value: string, validOldCIDRs: readonly string[] = []): StatusCause[] {
  return cidrForLegacyFieldErrors(value, validOldCIDRs).map((msg) => invalid(path, value, msg));
}

/**
 * ValidateEndpointIP: addresses that cannot be an endpoint (unspecified, loopback,
 * link-local unicast and multicast), as Go's net.IP predicates read them; an IPv4-mapped
 * address counts as IPv4.
 */
export function endpointIPCauses(ip: string, path: string): StatusCause[] {
  const parsed = parseIP(ip);
  if (parsed === undefined) return [invalid(path, ip, 'must be a valid IP address')];
  const v = parsed.value;
  const v4 = parsed.family === 'IPv4';
  const causes: StatusCause[] = [];
  if (v === 0n) causes.push(invalid(path, ip, `may not be unspecified (${ip})`));
  if (v4 ? v >> 24n === 127n : v === 1n) causes.push(invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (v4 ? v >> 16n === 0xa9fen : v >> 118n === 0x3fan) causes.push(invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  // Go's IsLinkLocalMulticast takes ffX2::/16 whatever the flags nibble X.
  if (v4 ? v >> 8n === 0xe00000n : v >> 120n === 0xffn && ((v >> 112n) & 0xfn) === 2n) {
    causes.push(invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return causes;
}
