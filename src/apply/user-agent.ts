// The manager of a write that names no fieldManager, as upstream's managerOrUserAgent and
// prefixFromUserAgent (k8s.io/apiserver/pkg/endpoints/handlers/create.go).

/** Upstream's FieldManagerMaxLength, in bytes. */
const fieldManagerMaxLength = 128;

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The part of a User-Agent before the first "/", without unprintable characters, cut to
 * 128 bytes: `kubectl/v1.33.1 (linux/amd64) kubernetes/abc` → `kubectl`.
 */
export function managerFromUserAgent(userAgent: string): string {
  const slash = userAgent.indexOf('/');
  const head = slash < 0 ? userAgent : userAgent.slice(0, slash);
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!printable.test(ch)) continue;
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > fieldManagerMaxLength) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/** The manager of a non-apply write: `fieldManager` when given, else from the User-Agent. */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  return managerFromUserAgent(userAgent ?? '');
}
