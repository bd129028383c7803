// Encryption at rest: the value transformers of upstream's EncryptionConfiguration providers
// (aescbc, aesgcm, secretbox, identity) with upstream's stored formats, so that data written
// by one server can be read by the other.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';

/**
 * Stored bytes to plain bytes and back, for one storage key (AES-GCM authenticates the key,
 * so a value copied to another key does not decrypt). fromStorage throws (or rejects) with
 * an Error worded as upstream's transformer when the bytes cannot be read. A read may have to
 * ask a key management service first (KMS v2, a key not seen yet): it answers a promise then.
 */
export interface ValueTransformer {
  toStorage(data: Uint8Array, key: string): Uint8Array;
  /** `onStale` is called when the data was written by a key that no longer writes (upstream's stale read). */
  fromStorage(data: Uint8Array, key: string, onStale?: () => void): Uint8Array | Promise<Uint8Array>;
}

/** A transformer whose keys are all at hand: every read answers at once. */
export interface LocalValueTransformer extends ValueTransformer {
  fromStorage(data: Uint8Array, key: string, onStale?: () => void): Uint8Array;
}

export type ProviderKind = 'aescbc' | 'aesgcm' | 'secretbox' | 'identity';

const encryptedPrefix = Buffer.from('k8s:enc:');
const aesBlock = 16;
const gcmNonce = 12;
const gcmTag = 16;
const secretboxNonce = 24;
const secretboxOverhead = 16;

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** Writes the bytes as they are; refuses to read what another provider encrypted (upstream's identity check). */
export const identityTransformer: LocalValueTransformer = {
  toStorage: (data) => data,
  fromStorage(data) {
    if (startsWith(data, encryptedPrefix)) throw new Error('identity transformer tried to read encrypted data');
    return data;
  },
};

function aesAlgorithm(mode: 'cbc' | 'gcm', secret: Uint8Array): string {
  return `aes-${secret.length * 8}-${mode}`;
}

/** AES-CBC with PKCS#7 padding: a random 16-byte IV, then the ciphertext. */
export function aescbcTransformer(secret: Uint8Array): LocalValueTransformer {
  const algorithm = aesAlgorithm('cbc', secret);
  return {
    toStorage(data) {
      const iv = randomBytes(aesBlock);
      const cipher = createCipheriv(algorithm, secret, iv);
      return concat(iv, cipher.update(data), cipher.final());
    },
    fromStorage(data) {
      if (data.length < aesBlock) throw new Error('the stored data was shorter than the required size');
      const body = data.subarray(aesBlock);
      if (body.length % aesBlock !== 0) throw new Error('the stored data is not a multiple of the block size');
      const decipher = createDecipheriv(algorithm, secret, data.subarray(0, aesBlock));
      // Padding is checked below, with upstream's messages.
      decipher.setAutoPadding(false);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]);
      const pad = plain.length === 0 ? 0 : plain[plain.length - 1]!;
      if (pad === 0 || pad > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = plain.length - pad; i < plain.length; i++) if (plain[i] !== pad) throw new Error('invalid padding on input');
      return new Uint8Array(plain.subarray(0, plain.length - pad));
    },
  };
}

/** AES-GCM: a random 12-byte nonce, the ciphertext, the 16-byte tag; the storage key is the additional data. */
export function aesgcmTransformer(secret: Uint8Array): LocalValueTransformer {
  const algorithm = aesAlgorithm('gcm', secret) as 'aes-256-gcm';
  return {
    toStorage(data, key) {
      const nonce = randomBytes(gcmNonce);
      const cipher = createCipheriv(algorithm, secret, nonce);
      cipher.setAAD(Buffer.from(key));
      return concat(nonce, cipher.update(data), cipher.final(), cipher.getAuthTag());
    },
    fromStorage(data, key) {
      if (data.length < gcmNonce + gcmTag) throw new Error('the stored data was shorter than the required size');
      const decipher = createDecipheriv(algorithm, secret, data.subarray(0, gcmNonce));
      decipher.setAAD(Buffer.from(key));
      decipher.setAuthTag(data.subarray(data.length - gcmTag));
      try {
        return new Uint8Array(Buffer.concat([decipher.update(data.subarray(gcmNonce, data.length - gcmTag)), decipher.final()]));
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}

/** NaCl secretbox (XSalsa20-Poly1305): a random 24-byte nonce, then the sealed box (tag, ciphertext). */
export function secretboxTransformer(secret: Uint8Array): LocalValueTransformer {
  return {
    toStorage(data) {
      const nonce = randomBytes(secretboxNonce);
      return concat(nonce, xsalsa20poly1305(secret, nonce).encrypt(data));
    },
    fromStorage(data) {
      if (data.length < secretboxNonce + secretboxOverhead) throw new Error('the stored data was shorter than the required size');
      try {
        return xsalsa20poly1305(secret, data.subarray(0, secretboxNonce)).decrypt(data.subarray(secretboxNonce));
      } catch {
        // What upstream's secretbox transformer says when the box does not open.
        throw new Error('output array too small');
      }
    },
  };
}

export interface PrefixedTransformer {
  /** `k8s:enc:<provider>:v1:<keyname>:`, or empty for identity. */
  prefix: Uint8Array;
  transformer: ValueTransformer;
}

/** The stored prefix of a provider's key, as upstream writes it. */
export function providerPrefix(kind: ProviderKind, keyName: string): Uint8Array {
  return kind === 'identity' ? new Uint8Array(0) : Buffer.from(`k8s:enc:${kind}:v1:${keyName}:`);
}

export function providerTransformer(kind: Exclude<ProviderKind, 'identity'>, secret: Uint8Array): LocalValueTransformer {
  switch (kind) {
    case 'aescbc': return aescbcTransformer(secret);
    case 'aesgcm': return aesgcmTransformer(secret);
    case 'secretbox': return secretboxTransformer(secret);
  }
}

/**
 * Upstream's prefix transformers: the first writes (with its prefix); a read goes to the
 * transformers whose prefix the data has, in order. An identity transformer (empty prefix)
 * that refuses encrypted data lets the others try; when none reads the data, the errors of
 * those that tried, else "no matching prefix found". Data read by any but the first is
 * stale, as is what the one that read it calls stale. A read stays synchronous until a
 * transformer answers a promise.
 */
export function prefixTransformers(transformers: PrefixedTransformer[]): ValueTransformer {
  const first = transformers[0];
  if (first === undefined) throw new Error('prefixTransformers needs at least one transformer');
  const failed = (errors: string[]): Error => {
    if (errors.length === 1) return new Error(errors[0]);
    if (errors.length > 1) return new Error(`[${errors.join(', ')}]`);
    return new Error('no matching prefix found');
  };
  const readFrom = (data: Uint8Array, key: string, onStale: (() => void) | undefined, start: number, errors: string[]): Uint8Array | Promise<Uint8Array> => {
    for (let i = start; i < transformers.length; i++) {
      const { prefix, transformer } = transformers[i]!;
      if (!startsWith(data, prefix)) continue;
      const noted = (err: unknown) => {
        if (prefix.length !== 0) errors.push((err as Error).message);
      };
      try {
        const out = transformer.fromStorage(data.subarray(prefix.length), key, onStale);
        if (!(out instanceof Promise)) {
          if (i !== 0) onStale?.();
          return out;
        }
        return out.then((plain) => {
          if (i !== 0) onStale?.();
          return plain;
        }, (err: unknown) => {
          noted(err);
          return readFrom(data, key, onStale, i + 1, errors);
        });
      } catch (err) {
        noted(err);
      }
    }
    throw failed(errors);
  };
  return {
    toStorage(data, key) {
      const out = first.transformer.toStorage(data, key);
      return first.prefix.length === 0 ? out : concat(first.prefix, out);
    },
    fromStorage: (data, key, onStale) => readFrom(data, key, onStale, 0, []),
  };
}
