// Request-header authentication (`--requestheader-*`), as upstream's headerrequest
// authenticator behind its x509 verifier: an authenticating proxy presenting a client
// certificate of the request-header CA (with an allowed common name, when names are
// listed) tells who the request is for in headers: the first non-empty username header,
// the uid header, every value of the group headers, and extra attributes from headers
// with the extra prefix (their names lowercased and %-decoded).
import { AuthenticationFailure, type Authenticator } from './authenticate.ts';
import type { UserInfo } from './user.ts';

export interface RequestHeaderOptions {
  /** Common names a proxy's certificate may have; empty for any the CA signed. */
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  uidHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
}

/** Each header's values in order, by lower-cased name, from Node's raw headers. */
function headerValues(rawHeaders: readonly string[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    let list = values.get(name);
    if (list === undefined) values.set(name, (list = []));
    list.push(rawHeaders[i + 1]!);
  }
  return values;
}

/** Go's url.PathUnescape, or the key as it is when it does not decode (upstream records it anyway). */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

export function requestHeaderAuthenticator(opts: RequestHeaderOptions): Authenticator {
  const lower = (names: readonly string[]) => names.map((n) => n.toLowerCase());
  const usernameHeaders = lower(opts.usernameHeaders);
  const uidHeaders = lower(opts.uidHeaders);
  const groupHeaders = lower(opts.groupHeaders);
  const prefixes = lower(opts.extraHeaderPrefixes);
  return ({ clientCertificate: cert, rawHeaders }) => {
    // Another CA's certificate: not a proxy. (Upstream's verifier fails it; the client-certificate
    // authenticator after this one then decides, which is the same outcome without an exception
    // for every request with a client certificate.)
    if (cert === undefined || cert.proxyVerified !== true) return undefined;
    if (opts.allowedNames.length > 0 && !opts.allowedNames.includes(cert.commonName)) {
      throw new AuthenticationFailure(`x509: subject with cn=${cert.commonName} is not in the allowed list`);
    }
    const headers = headerValues(rawHeaders ?? []);
    const first = (names: readonly string[]) => {
      for (const name of names) {
        const value = headers.get(name)?.[0];
        if (value !== undefined && value !== '') return value;
      }
      return '';
    };
    const name = first(usernameHeaders);
    if (name === '') return undefined;
    const groups = groupHeaders.flatMap((header) => (headers.get(header) ?? []).filter((v) => v !== ''));
    const extra: Record<string, string[]> = {};
    for (const prefix of prefixes) {
      for (const [header, values] of headers) {
        if (!header.startsWith(prefix)) continue;
        (extra[unescapeKey(header.slice(prefix.length))] ??= []).push(...values);
      }
    }
    const user: UserInfo = { name, uid: first(uidHeaders), groups };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { user };
  };
}
