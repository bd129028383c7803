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
 * How a transformation went, as upstream's `apiserver_storage_transformation_*` metrics count
 * it: the prefix that did it (`identity` for a read by the identity provider, `unknown` when no
 * prefix matched), how long the chain had taken, and the error when it failed.
 */
export type TransformationObserver = (type: 'from_storage' | 'to_storage', prefix: string, seconds: number, error?: Error) => void;

export interface PrefixTransformersOptions {
  /** The error when no transformer's prefix matches the data (upstream's chains each have their own). */
  noMatch?: string;
  observe?: TransformationObserver;
}

const utf8 = new TextDecoder();
const secondsSince = (started: number) => (performance.now() - started) / 1000;

/**
 * Upstream's prefix transformers: the first writes (with its prefix); a read goes to the
 * transformers whose prefix the data has, in order. An identity transformer (empty prefix)
 * that refuses encrypted data lets the others try; when none reads the data, the errors of
 * those that tried, else the chain's own (`noMatch`). Data read by any but the first is
 * stale, as is what the one that read it calls stale. A read stays synchronous until a
 * transformer answers a promise. Each attempt but the identity's refusal is told to
 * `observe`, as upstream records it.
 */
export function prefixTransformers(transformers: PrefixedTransformer[], opts: PrefixTransformersOptions = {}): ValueTransformer {
  const first = transformers[0];
  if (first === undefined) throw new Error('prefixTransformers needs at least one transformer');
  const { observe } = opts;
  const noMatch = opts.noMatch ?? 'no matching prefix found';
  const labels = transformers.map(({ prefix }) => utf8.decode(prefix));
  const failed = (errors: string[], started: number): Error => {
    if (errors.length === 1) return new Error(errors[0]);
    if (errors.length > 1) return new Error(`[${errors.join(', ')}]`);
    const err = new Error(noMatch);
    observe?.('from_storage', 'unknown', secondsSince(started), err);
    return err;
  };
  const readFrom = (data: Uint8Array, key: string, onStale: (() => void) | undefined, start: number, errors: string[], started: number): Uint8Array | Promise<Uint8Array> => {
    for (let i = start; i < transformers.length; i++) {
      const { prefix, transformer } = transformers[i]!;
      if (!startsWith(data, prefix)) continue;
      const identity = prefix.length === 0;
      const read = (plain: Uint8Array): Uint8Array => {
        observe?.('from_storage', identity ? 'identity' : labels[i]!, secondsSince(started));
        if (i !== 0) onStale?.();
        return plain;
      };
      // The identity provider's refusal of encrypted data is no error: the others try.
      const noted = (err: unknown) => {
        if (identity) return;
        observe?.('from_storage', labels[i]!, secondsSince(started), err as Error);
        errors.push((err as Error).message);
      };
      let out: Uint8Array | Promise<Uint8Array>;
      try {
        out = transformer.fromStorage(data.subarray(prefix.length), key, onStale);
      } catch (err) {
        noted(err);
        continue;
      }
      if (!(out instanceof Promise)) return read(out);
      return out.then(read, (err: unknown) => {
        noted(err);
        return readFrom(data, key, onStale, i + 1, errors, started);
      });
    }
    throw failed(errors, started);
  };
  return {
    toStorage(data, key) {
      const started = performance.now();
      let out: Uint8Array;
      try {
        out = first.transformer.toStorage(data, key);
      } catch (err) {
        observe?.('to_storage', labels[0]!, secondsSince(started), err as Error);
        throw err;
      }
      observe?.('to_storage', labels[0]!, secondsSince(started));
      return first.prefix.length === 0 ? out : concat(first.prefix, out);
    },
    fromStorage: (data, key, onStale) => readFrom(data, key, onStale, 0, [], performance.now()),
  };
}

/**
 * A provider with named keys (aescbc, aesgcm, secretbox) as upstream builds it: a chain of
 * its keys, each under its name and a colon, under the provider's prefix
 * `k8s:enc:<kind>:v1:`. Data under the prefix with no key of that name is upstream's
 * `no matching key was found for the provided AES transformer` (Secretbox for secretbox).
 */
export function keyedProvider(kind: Exclude<ProviderKind, 'identity'>, keys: Array<{ name: string; secret: Uint8Array }>, observe?: TransformationObserver): PrefixedTransformer {
  const chain = keys.map(({ name, secret }) => ({ prefix: Buffer.from(`${name}:`), transformer: providerTransformer(kind, secret) }));
  const noMatch = `no matching key was found for the provided ${kind === 'secretbox' ? 'Secretbox' : 'AES'} transformer`;
  return { prefix: Buffer.from(`k8s:enc:${kind}:v1:`), transformer: prefixTransformers(chain, { noMatch, ...(observe !== undefined ? { observe } : {}) }) };
}

/**
 * The status upstream's transformation metrics give an outcome: `OK`, the gRPC code of a
 * key management service's failure (`Unavailable`, …), else `unknown-non-grpc`.
 */
export function transformationStatus(error: Error | undefined): string {
  if (error === undefined) return 'OK';
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { grpcCode?: unknown }).grpcCode;
    if (typeof code === 'string') return code;
  }
  return 'unknown-non-grpc';
}
