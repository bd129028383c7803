// Whether a kubernetes.io/tls Secret's certificate and key make a pair, in the words of Go's
// tls.X509KeyPair, whose error upstream's Secret strategy sends as a warning: PEM blocks
// read as Go's pem.Decode reads them, the first certificate's public key compared with the
// private key (RSA modulus, EC curve and point, Ed25519 key).
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { pemBlocks, type PemBlock } from '../../api/go-pem.ts';

/** Go's %v of a []string. */
const goList = (items: string[]) => `[${items.join(' ')}]`;

/** Go's tls parsePrivateKey: PKCS #1, PKCS #8 (RSA, ECDSA, Ed25519) or SEC 1. */
function parsePrivateKey(der: Buffer): KeyObject | string {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: der, format: 'der', type });
    } catch {
      continue;
    }
    const kind = key.asymmetricKeyType;
    if (kind === 'rsa' || kind === 'ed25519' || (kind === 'ec' && goCurve(key))) return key;
    if (type === 'pkcs8' && kind === 'x25519') return 'tls: found unknown private key type in PKCS#8 wrapping';
  }
  return 'tls: failed to parse private key';
}

/** The curves Go's crypto/x509 parses (others: `x509: unsupported elliptic curve`). */
const goCurves = new Set(['secp224r1', 'prime256v1', 'secp384r1', 'secp521r1']);

const goCurve = (key: KeyObject) => key.asymmetricKeyType !== 'ec' || goCurves.has(key.asymmetricKeyDetails?.namedCurve ?? '');

/** A public key as its SubjectPublicKeyInfo, what Go's comparison of modulus, point or key amounts to. */
const publicKeyInfo = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });

/** Go's tls.X509KeyPair error for this certificate and key, or undefined when they make a pair. */
export function x509KeyPairError(certPEM: Buffer, keyPEM: Buffer): string | undefined {
  const certBlocks = pemBlocks(certPEM.toString('latin1'));
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) {
    const skipped = certBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0]!.endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${goList(skipped)}`;
  }

  const skipped: string[] = [];
  let keyBlock: PemBlock | undefined;
  for (const block of pemBlocks(keyPEM.toString('latin1'))) {
    if (block.type === 'PRIVATE KEY' || block.type.endsWith(' PRIVATE KEY')) {
      keyBlock = block;
      break;
    }
    skipped.push(block.type);
  }
  if (keyBlock === undefined) {
    if (skipped.length === 0) return 'tls: failed to find any PEM data in key input';
    if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${goList(skipped)}`;
  }

  let publicKey: KeyObject;
  try {
    publicKey = new X509Certificate(certs[0]!.der).publicKey;
  } catch {
    return 'x509: malformed certificate';
  }
  if (!goCurve(publicKey)) return 'x509: unsupported elliptic curve';
  const privateKey = parsePrivateKey(keyBlock.der);
  if (typeof privateKey === 'string') return privateKey;
  const kind = publicKey.asymmetricKeyType;
  if (kind !== 'rsa' && kind !== 'ec' && kind !== 'ed25519') return 'tls: unknown public key algorithm';
  if (privateKey.asymmetricKeyType !== kind) return 'tls: private key type does not match public key type';
  if (!publicKeyInfo(publicKey).equals(publicKeyInfo(createPublicKey(privateKey)))) return 'tls: private key does not match public key';
  return undefined;
}
