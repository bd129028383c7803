// The keys service-account tokens are signed and verified with: loaded from PEM files, a default created in the data dir, key ids as upstream computes them, and the issuer's public JWKS.
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, X509Certificate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readIfPresent } from '../api/read-if-present.ts';

export interface VerificationKey {
  keyId: string;
  key: KeyObject;
  /** The JWS algorithm tokens signed with this key use: RS256, or ES256/384/512 by curve. */
  algorithm: string;
}

export interface SigningKey extends VerificationKey {
  privateKey: KeyObject;
}

export interface ServiceAccountKeys {
  signing: SigningKey;
  /** Every key a token may be verified with (`--service-account-key-file`, or the signing key). */
  verification: VerificationKey[];
}

export interface ServiceAccountKeyOptions {
  dataDir: string;
  /** `--service-account-signing-key-file`; default `<dataDir>/pki/sa.key`, created (RSA 2048) when absent. */
  signingKeyFile?: string;
  /** `--service-account-key-file` (repeatable): PEM public keys, private keys or certificates; default the signing key. */
  keyFiles?: string[];
  /** Whether the signing key created is synced to disk (default true; not for a data dir thrown away with the process). */
  sync?: boolean;
}

/**
 * The keys, loaded on first call (and once): creating the default RSA key takes a moment
 * that a server issuing no tokens need not spend at start-up.
 */
export function lazyServiceAccountKeys(opts: ServiceAccountKeyOptions): () => Promise<ServiceAccountKeys> {
  let loading: Promise<ServiceAccountKeys> | undefined;
  return () => {
    loading ??= loadServiceAccountKeys(opts);
    // A failure is not remembered: the next call tries again.
    loading.catch(() => { loading = undefined; });
    return loading;
  };
}

/** The default signing key's path in the data dir (kubeadm's name). */
export function defaultSigningKeyPath(dataDir: string): string {
  return join(dataDir, 'pki', 'sa.key');
}

/** Loads the signing and verification keys, creating the data dir's default signing key on first use. */
export async function loadServiceAccountKeys(opts: ServiceAccountKeyOptions): Promise<ServiceAccountKeys> {
  const signingFile = opts.signingKeyFile ?? defaultSigningKeyPath(opts.dataDir);
  let signingPem = readIfPresent(signingFile);
  if (signingPem === undefined) {
    if (opts.signingKeyFile !== undefined) throw new Error(`--service-account-signing-key-file ${signingFile} does not exist`);
    signingPem = await createSigningKey(signingFile, opts.sync !== false);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(signingPem);
  } catch (err) {
    throw new Error(`${signingFile} holds no PEM private key: ${(err as Error).message}`);
  }
  const publicKey = createPublicKey(privateKey);
  const signing: SigningKey = { privateKey, key: publicKey, keyId: keyIdOf(publicKey), algorithm: algorithmOf(publicKey, signingFile) };
  const verification: VerificationKey[] = [];
  for (const file of opts.keyFiles ?? []) {
    for (const key of publicKeysIn(await readFile(file, 'utf8'), file)) verification.push({ key, keyId: keyIdOf(key), algorithm: algorithmOf(key, file) });
  }
  if (verification.length === 0) verification.push(signing);
  return { signing, verification };
}

/**
 * A new RSA 2048 key (PKCS#8 PEM, mode 0600), written only if the file still does not
 * exist; when another process wrote one first, that one is the key.
 */
async function createSigningKey(path: string, sync: boolean): Promise<string> {
  // Off the event loop: an RSA key takes a while to find.
  const { privateKey: pem } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(pem);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    return pem;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return await readFile(path, 'utf8');
  }
}

/**
 * Upstream's keyIDFromPublicKey: the unpadded base64url SHA-256 of the public key's
 * PKIX (SubjectPublicKeyInfo) DER, so the same key always has the same id.
 */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function algorithmOf(key: KeyObject, source: string): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new Error(`${source}: service-account keys must be RSA or ECDSA (P-256, P-384, P-521) keys`);
}

/** The public keys of every PEM block (public or private keys, certificates) in a key file. */
function publicKeysIn(text: string, source: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const match of text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g)) {
    const [pem, label] = match as unknown as [string, string];
    try {
      if (label === 'CERTIFICATE') keys.push(new X509Certificate(pem).publicKey);
      else if (label.includes('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(pem)));
      else if (label.includes('PUBLIC KEY')) keys.push(createPublicKey(pem));
    } catch (err) {
      throw new Error(`${source}: a ${label} block cannot be read: ${(err as Error).message}`);
    }
  }
  if (keys.length === 0) throw new Error(`${source} holds no PEM public key, private key or certificate`);
  return keys;
}

/**
 * The issuer's public keys as a JWK Set (`/openid/v1/jwks`), as upstream publishes them: use
 * sig, kty, kid, alg and the key, in go-jose's order (an EC key's crv before alg).
 */
export function publicJwks(keys: readonly VerificationKey[]): { keys: Record<string, unknown>[] } {
  const seen = new Set<string>();
  const out: Record<string, unknown>[] = [];
  for (const { key, keyId, algorithm } of keys) {
    if (seen.has(keyId)) continue;
    seen.add(keyId);
    const jwk = key.export({ format: 'jwk' }) as Record<string, unknown>;
    out.push(jwk.kty === 'RSA'
      ? { use: 'sig', kty: jwk.kty, kid: keyId, alg: algorithm, n: jwk.n, e: jwk.e }
      : { use: 'sig', kty: jwk.kty, kid: keyId, crv: jwk.crv, alg: algorithm, x: jwk.x, y: jwk.y });
  }
  return { keys: out };
}

/**
 * The issuer's OpenID discovery document (`/.well-known/openid-configuration`), as
 * upstream's serviceaccount.NewOpenIDMetadataProvider writes it.
 */
export function openIdConfiguration(issuer: string, jwksUri: string, keys: readonly VerificationKey[]): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keys.map((k) => k.algorithm))].sort(),
  };
}
