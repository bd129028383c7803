// A failed connection to another server (a webhook, a kubelet) worded as Go's net and
// crypto/tls packages word it, which is what upstream's answers and logs carry.
import { isIP } from 'node:net';

/** Go's net.JoinHostPort: `host:port`, an IPv6 address in brackets. */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The host of `host:port` or `[v6]:port`. */
export function hostOf(address: string): string {
  return address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.slice(0, address.lastIndexOf(':'));
}

/** Node's codes for a server certificate that does not verify against the trusted roots. */
const unknownAuthority = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

/** Node's codes for a server certificate refused: not trusted, expired, or for other names. */
export const certificateErrorCodes: ReadonlySet<string> = new Set([...unknownAuthority, 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/**
 * Go's x509.HostnameError for a certificate that does not name the host dialed: the IP SANs
 * it holds when the host is an address, else its DNS names.
 */
function hostnameError(host: string, subjectAltName: string | undefined): string {
  const entries = (subjectAltName ?? '').split(', ').filter((e) => e !== '');
  const ip = isIP(host) !== 0;
  const names = entries.filter((e) => e.startsWith(ip ? 'IP Address:' : 'DNS:')).map((e) => e.slice(e.indexOf(':') + 1));
  if (ip && names.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (names.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${names.join(', ')}, not ${host}`;
}

/**
 * `err`, from dialing `address` (`host:port`), as Go's dialer and TLS client say it;
 * `serverName`: the name the certificate was checked for, when not the address's host.
 */
export function goDialError(err: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }, address: string, serverName?: string): string {
  const host = hostOf(address);
  const code = err.code ?? '';
  if (unknownAuthority.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  switch (code) {
    case 'ECONNREFUSED': return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH': return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH': return `dial tcp ${address}: connect: network is unreachable`;
    case 'ETIMEDOUT': return `dial tcp ${address}: i/o timeout`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET': return `read tcp ${address}: read: connection reset by peer`;
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: ${hostnameError(serverName ?? host, err.cert?.subjectaltname)}`;
    default: return err.message;
  }
}
