// KMS v2 envelope encryption, as kube-apiserver's kmsv2 envelope transformer and its
// provider probe: values are sealed with a key derived from a local seed (HKDF-SHA256 over
// 32 random bytes stored before each value, then AES-GCM with the storage key as additional
// data), and the seed itself, encrypted by the key management service's plugin, is stored
// beside every value in an EncryptedObject. The plugin is asked for its status every minute
// (every 10 s while it fails); a new seed is made whenever the key id it reports changes,
// and a read asks the plugin once per seed it has not seen. Same stored format as upstream,
// so either server reads what the other wrote with the same plugin.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { fullyQualifiedDomainNameError } from '../api/labels.ts';
import { encodeMessage, WireMessage } from './kms-wire.ts';
import { aesgcmTransformer, type LocalValueTransformer, type ValueTransformer } from './value-transformers.ts';

export interface KmsStatus { version: string; healthz: string; keyId: string }
export interface KmsEncryptResponse { ciphertext: Uint8Array; keyId: string; annotations: Map<string, Uint8Array> }
export interface KmsDecryptRequest { ciphertext: Uint8Array; keyId: string; annotations: Map<string, Uint8Array> }

/** The plugin's three calls (k8s.io/kms/apis/v2 KeyManagementService); a call that fails rejects with the error's text. */
export interface KmsService {
  status(): Promise<KmsStatus>;
  encrypt(uid: string, plaintext: Uint8Array): Promise<KmsEncryptResponse>;
  decrypt(uid: string, request: KmsDecryptRequest): Promise<Uint8Array>;
  close(): void;
}

/** How the plaintext of `encryptedDEKSource` gives the data's key (upstream's EncryptedDEKSourceType). */
export const AES_GCM_KEY = 0;
export const HKDF_SHA256_XNONCE_AES_GCM_SEED = 1;

/** What a stored value holds after its provider's prefix (upstream's kmsv2 EncryptedObject, fields 1–5). */
export interface EncryptedObject {
  encryptedData: Uint8Array;
  keyId: string;
  encryptedDEKSource: Uint8Array;
  annotations: Map<string, Uint8Array>;
  encryptedDEKSourceType: number;
}

const keyIdMaxSize = 1024;
const encryptedDEKSourceMaxSize = 1024;
const annotationsMaxSize = 32 * 1024;
const seedSize = 32;
const infoSize = 32;
/** How long a decrypted seed is kept after its last use (upstream's cache TTL). */
const seedCacheTtlMs = 24 * 60 * 60 * 1000;

export function encodeEncryptedObject(o: EncryptedObject): Uint8Array {
  return encodeMessage([[1, o.encryptedData], [2, o.keyId], [3, o.encryptedDEKSource], [4, o.annotations], [5, o.encryptedDEKSourceType]]);
}

export function decodeEncryptedObject(data: Uint8Array): EncryptedObject {
  const m = new WireMessage(data);
  const o = { encryptedData: m.bytes(1), keyId: m.string(2), encryptedDEKSource: m.bytes(3), annotations: m.map(4), encryptedDEKSourceType: m.number(5) };
  validateEncryptedObject(o);
  return o;
}

/** Upstream's ValidateKeyID: undefined, or the error and its metric code. */
export function keyIdError(keyId: string): { code: 'empty' | 'too_long'; message: string } | undefined {
  const size = Buffer.byteLength(keyId);
  if (size === 0) return { code: 'empty', message: 'keyID is empty' };
  if (size > keyIdMaxSize) return { code: 'too_long', message: `keyID is ${size} bytes, which exceeds the max size of ${keyIdMaxSize}` };
  return undefined;
}

/** An aggregate of errors as apimachinery prints one: the error alone, or all in brackets. */
function aggregate(errors: string[]): string | undefined {
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

function annotationsError(annotations: Map<string, Uint8Array>): string | undefined {
  const errors: string[] = [];
  let total = 0;
  for (const [key, value] of annotations) {
    const bad = fullyQualifiedDomainNameError(key);
    if (bad === 'required') errors.push('annotations: Required value');
    else if (bad !== undefined) errors.push(`annotations: Invalid value: ${JSON.stringify(bad.value)}: ${bad.detail}`);
    total += Buffer.byteLength(key) + value.length;
  }
  if (total > annotationsMaxSize) errors.push(`total size of annotations is ${total}, which exceeds the max size of ${annotationsMaxSize}`);
  return aggregate(errors);
}

/** Upstream's ValidateEncryptedObject, with its messages. */
export function validateEncryptedObject(o: EncryptedObject): void {
  if (o.encryptedDEKSourceType !== AES_GCM_KEY && o.encryptedDEKSourceType !== HKDF_SHA256_XNONCE_AES_GCM_SEED) {
    throw new Error(`unknown encryptedDEKSourceType: ${o.encryptedDEKSourceType}`);
  }
  if (o.encryptedData.length === 0) throw new Error('encrypted data is empty');
  if (o.encryptedDEKSource.length === 0) throw new Error('failed to validate encrypted DEK source: encrypted DEK source is empty');
  if (o.encryptedDEKSource.length > encryptedDEKSourceMaxSize) {
    throw new Error(`failed to validate encrypted DEK source: encrypted DEK source is ${o.encryptedDEKSource.length} bytes, which exceeds the max size of ${encryptedDEKSourceMaxSize}`);
  }
  const keyId = keyIdError(o.keyId);
  if (keyId !== undefined) throw new Error(`failed to validate key id: ${keyId.message}`);
  const annotations = annotationsError(o.annotations);
  if (annotations !== undefined) throw new Error(`failed to validate annotations: ${annotations}`);
}

/** The cache key of a seed (or key) as upstream builds it: type, source, key id and sorted annotations, length-prefixed. */
function cacheKey(o: Omit<EncryptedObject, 'encryptedData'>): string {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    parts.push(b);
  };
  const prefixed = (bytes: Uint8Array) => {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(bytes.length);
    parts.push(b, Buffer.from(bytes));
  };
  u32(o.encryptedDEKSourceType);
  prefixed(o.encryptedDEKSource);
  prefixed(Buffer.from(o.keyId));
  if (o.annotations.size > 0) {
    u32(o.annotations.size);
    for (const key of [...o.annotations.keys()].sort()) {
      prefixed(Buffer.from(key));
      prefixed(o.annotations.get(key)!);
    }
  }
  return Buffer.concat(parts).toString('latin1');
}

/** HKDF-Expand (RFC 5869) with SHA-256 for one 32-byte block: the seed is the pseudorandom key, as upstream's expand-only KDF. */
function expandKey(seed: Uint8Array, info: Uint8Array): Buffer {
  return createHmac('sha256', seed).update(info).update(Uint8Array.of(1)).digest();
}

/**
 * Upstream's extended-nonce AES-GCM: each write derives a fresh key from the seed and 32
 * random bytes, which are stored first; then the AES-GCM layout (nonce, ciphertext, tag).
 */
export function extendedNonceTransformer(seed: Uint8Array): LocalValueTransformer {
  if (seed.length < seedSize) throw new Error(`invalid seed length ${seed.length} used for key generation`);
  return {
    toStorage(data, key) {
      const info = randomBytes(infoSize);
      return Buffer.concat([info, aesgcmTransformer(expandKey(seed, info)).toStorage(data, key)]);
    },
    fromStorage(data, key) {
      if (data.length < infoSize) throw new Error('the stored data was shorter than the required size');
      const info = data.subarray(0, infoSize);
      return aesgcmTransformer(expandKey(seed, info)).fromStorage(data.subarray(infoSize), key);
    },
  };
}

/** The data key's transformer from the decrypted source: a seed, or (older values) the AES-GCM key itself. */
function readTransformer(plain: Uint8Array, sourceType: number): LocalValueTransformer {
  if (sourceType === HKDF_SHA256_XNONCE_AES_GCM_SEED) return extendedNonceTransformer(plain);
  if (![16, 24, 32].includes(plain.length)) throw new Error(`crypto/aes: invalid key size ${plain.length}`);
  return aesgcmTransformer(plain);
}

/** sha256:<hex> of a key id, as upstream names key ids in its messages; empty for an empty id. */
function keyIdHash(keyId: string): string {
  return keyId === '' ? '' : `sha256:${createHash('sha256').update(keyId).digest('hex')}`;
}

/** Go's time.Format(time.RFC3339) of a UTC instant; Go's zero time for none. */
function rfc3339(ms: number | undefined): string {
  return ms === undefined ? '0001-01-01T00:00:00Z' : `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

interface WriteState {
  transformer: LocalValueTransformer;
  object: Omit<EncryptedObject, 'encryptedData'>;
  cacheKey: string;
  /** Writes stop after this instant unless a status check renews it. */
  expiresAt: number;
}

/** What a provider reports for upstream's `apiserver_envelope_encryption_*` metrics. */
export interface KmsMetrics {
  keyIdUsed(transformation: 'from_storage' | 'to_storage', provider: string, keyId: string): void;
  statusKeyId(provider: string, keyId: string): void;
  invalidStatusKeyId(provider: string, error: 'empty' | 'too_long'): void;
  seedCacheSize(provider: string, size: number): void;
  cacheMiss(): void;
  dataKeyGeneration(seconds: number, failed: boolean): void;
}

export interface KmsV2Options {
  /** The provider's name in the configuration (its stored prefix is `k8s:enc:kms:v2:<name>:`). */
  name: string;
  service: KmsService;
  /** Upstream's fixed intervals; tests shorten them. */
  statusIntervalMs?: number;
  retryIntervalMs?: number;
  now?: () => number;
  log?: (message: string) => void;
  metrics?: KmsMetrics;
}

/** The status poll's intervals and how long a seed may write without a good status, as upstream's. */
const statusIntervalMs = 60_000;
const retryIntervalMs = 10_000;
const writeSeedMaxTtlMs = 3 * 60_000;
const healthyTtlMs = 20_000;
const unhealthyTtlMs = 3_000;

/** One KMS v2 provider of the configuration: its transformer, its health check and its status poll. */
export class KmsV2Provider {
  readonly name: string;
  readonly transformer: ValueTransformer;
  readonly #service: KmsService;
  readonly #now: () => number;
  readonly #log: (message: string) => void;
  readonly #metrics: KmsMetrics | undefined;
  readonly #statusIntervalMs: number;
  readonly #retryIntervalMs: number;
  #state: WriteState | undefined;
  /** Decrypted seeds by cache key, with when each was last used. */
  readonly #seeds = new Map<string, { transformer: LocalValueTransformer; usedAt: number }>();
  /** Reads waiting for the plugin to decrypt a seed, one call per seed. */
  readonly #decrypting = new Map<string, Promise<LocalValueTransformer>>();
  #version = '';
  #last: { at: number; error: Error | undefined; ttl: number } | undefined;
  #checking: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: KmsV2Options) {
    this.name = opts.name;
    this.#service = opts.service;
    this.#now = opts.now ?? Date.now;
    this.#log = opts.log ?? (() => {});
    this.#metrics = opts.metrics;
    this.#statusIntervalMs = opts.statusIntervalMs ?? statusIntervalMs;
    this.#retryIntervalMs = opts.retryIntervalMs ?? retryIntervalMs;
    this.transformer = {
      toStorage: (data, key) => this.#toStorage(data, key),
      fromStorage: (data, key, onStale) => this.#fromStorage(data, key, onStale),
    };
  }

  /**
   * Asks the plugin's status once (a server starts writing at once when the plugin is up),
   * then polls: every minute, every 10 s while the plugin fails. A plugin that is not up
   * yet does not stop the start, as upstream's: writes fail until it answers.
   */
  async start(): Promise<void> {
    let healthy = true;
    try {
      await this.check();
    } catch (err) {
      healthy = false;
      this.#log(`kms plugin failed health check probe: ${(err as Error).message}`);
    }
    this.#schedule(healthy);
  }

  #schedule(healthy: boolean): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.check().then(() => this.#schedule(true), (err: unknown) => {
        this.#log(`kms plugin failed health check probe: ${(err as Error).message}`);
        this.#schedule(false);
      });
    }, healthy ? this.#statusIntervalMs : this.#retryIntervalMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#service.close();
  }

  /**
   * The health check (`kms-providers`): the plugin's status, and a new seed when its key id
   * changed. An answer is reused for 20 s when good, 3 s when not, as upstream's probe.
   */
  check(): Promise<void> {
    const last = this.#last;
    if (last !== undefined && this.#now() - last.at < last.ttl) return last.error === undefined ? Promise.resolve() : Promise.reject(last.error);
    this.#checking ??= this.#probe().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #probe(): Promise<void> {
    let error: Error | undefined;
    try {
      let status: KmsStatus;
      try {
        status = await this.#service.status();
      } catch (err) {
        throw new Error(`failed to perform status section of the healthz check for KMS Provider ${this.name}, error: ${(err as Error).message}`);
      }
      await this.#healthyAndMaybeRotate(status);
    } catch (err) {
      error = err as Error;
    }
    this.#last = { at: this.#now(), error, ttl: error === undefined ? healthyTtlMs : unhealthyTtlMs };
    if (error !== undefined) throw error;
  }

  async #healthyAndMaybeRotate(status: KmsStatus): Promise<void> {
    const errors: string[] = [];
    if (status.healthz !== 'ok') errors.push(`got unexpected healthz status: ${status.healthz}`);
    if (status.version !== 'v2' && status.version !== 'v2beta1') errors.push(`expected KMSv2 API version v2, got ${status.version}`);
    else {
      if (this.#version === '') this.#version = status.version;
      if (this.#version !== status.version) errors.push(`KMSv2 API version should not change after the initial status response version ${this.#version}, got ${status.version}`);
    }
    const keyId = keyIdError(status.keyId);
    if (keyId !== undefined) {
      this.#metrics?.invalidStatusKeyId(this.name, keyId.code);
      errors.push(`got invalid KMSv2 KeyID hash ${JSON.stringify(keyIdHash(status.keyId))}: ${keyId.message}`);
    } else {
      this.#metrics?.statusKeyId(this.name, status.keyId);
      const rotation = await this.#rotateOnKeyIdChange(status.keyId);
      if (rotation !== undefined) errors.push(rotation);
    }
    const message = aggregate(errors);
    if (message !== undefined) throw new Error(`kmsv2 Provider ${this.name} is not healthy, error: ${message}`);
  }

  /**
   * Keeps the seed while the plugin reports the key id it was encrypted with (its writes
   * renewed for three minutes); else makes a new seed and has the plugin encrypt it. On
   * failure the current seed keeps writing until it expires.
   */
  async #rotateOnKeyIdChange(statusKeyId: string): Promise<string | undefined> {
    const expiresAt = this.#now() + writeSeedMaxTtlMs;
    const state = this.#state;
    if (state !== undefined && state.object.keyId === statusKeyId && state.object.encryptedDEKSourceType === HKDF_SHA256_XNONCE_AES_GCM_SEED) {
      state.expiresAt = expiresAt;
      return undefined;
    }
    const uid = randomUUID();
    const started = performance.now();
    const seed = randomBytes(seedSize);
    this.#metrics?.dataKeyGeneration((performance.now() - started) / 1000, false);
    let generated: WriteState | undefined;
    let failure: string | undefined;
    try {
      let response: KmsEncryptResponse;
      try {
        response = await this.#service.encrypt(uid, seed);
      } catch (err) {
        throw new Error(`failed to encrypt DEK, error: ${(err as Error).message}`, { cause: err });
      }
      const object = { keyId: response.keyId, encryptedDEKSource: response.ciphertext, annotations: response.annotations, encryptedDEKSourceType: HKDF_SHA256_XNONCE_AES_GCM_SEED };
      validateEncryptedObject({ ...object, encryptedData: Uint8Array.of(0) });
      generated = { transformer: extendedNonceTransformer(seed), object, cacheKey: cacheKey(object), expiresAt };
    } catch (err) {
      failure = (err as Error).message;
    }
    if (generated !== undefined && generated.object.keyId === statusKeyId) {
      this.#state = generated;
      return undefined;
    }
    const stateError = state === undefined ? 'got unexpected nil transformer' : '<nil>';
    return `failed to rotate DEK uid=${JSON.stringify(uid)}, useSeed=true, errState=${stateError}, errGen=${failure ?? '<nil>'}, `
      + `statusKeyIDHash=${JSON.stringify(keyIdHash(statusKeyId))}, encryptKeyIDHash=${JSON.stringify(keyIdHash(generated?.object.keyId ?? ''))}, `
      + `stateKeyIDHash=${JSON.stringify(keyIdHash(state?.object.keyId ?? ''))}, expirationTimestamp=${rfc3339(state?.expiresAt)}`;
  }

  /** The state to write with; reads need one too, as upstream's (a provider never primed reads nothing). */
  #currentState(): WriteState {
    if (this.#state === undefined) throw new Error('got unexpected nil transformer');
    return this.#state;
  }

  #toStorage(data: Uint8Array, key: string): Uint8Array {
    const state = this.#currentState();
    const now = this.#now();
    if (now > state.expiresAt) {
      throw new Error(`encryptedDEKSource with keyID hash ${JSON.stringify(keyIdHash(state.object.keyId))} expired at ${rfc3339(state.expiresAt)} (current time is ${rfc3339(now)})`);
    }
    // What this server writes it reads without asking the plugin.
    this.#remember(state.cacheKey, state.transformer, now);
    const sealed = state.transformer.toStorage(data, key);
    this.#metrics?.keyIdUsed('to_storage', this.name, state.object.keyId);
    return encodeEncryptedObject({ ...state.object, encryptedData: sealed });
  }

  #fromStorage(data: Uint8Array, key: string, onStale: (() => void) | undefined): Uint8Array | Promise<Uint8Array> {
    const object = decodeEncryptedObject(data);
    const state = this.#currentState();
    // Sealed under another key id (or the older plain-key scheme) than this server writes with now: stale, as upstream's.
    if (onStale !== undefined && (object.keyId !== state.object.keyId || object.encryptedDEKSourceType !== state.object.encryptedDEKSourceType)) onStale();
    const id = cacheKey(object);
    const now = this.#now();
    const known = this.#seeds.get(id);
    if (known !== undefined && now - known.usedAt < seedCacheTtlMs) {
      known.usedAt = now;
      this.#metrics?.keyIdUsed('from_storage', this.name, object.keyId);
      return known.transformer.fromStorage(object.encryptedData, key);
    }
    let pending = this.#decrypting.get(id);
    if (pending === undefined) {
      // Counted once per seed asked for: reads waiting for the same one share its Decrypt.
      this.#metrics?.cacheMiss();
      pending = this.#decryptSeed(object, id).finally(() => this.#decrypting.delete(id));
      this.#decrypting.set(id, pending);
    }
    return pending.then((transformer) => {
      this.#metrics?.keyIdUsed('from_storage', this.name, object.keyId);
      return transformer.fromStorage(object.encryptedData, key);
    });
  }

  async #decryptSeed(object: EncryptedObject, id: string): Promise<LocalValueTransformer> {
    let plain: Uint8Array;
    try {
      plain = await this.#service.decrypt(randomUUID(), { ciphertext: object.encryptedDEKSource, keyId: object.keyId, annotations: object.annotations });
    } catch (err) {
      throw new Error(`failed to decrypt DEK, error: ${(err as Error).message}`, { cause: err });
    }
    const transformer = readTransformer(plain, object.encryptedDEKSourceType);
    this.#remember(id, transformer, this.#now());
    return transformer;
  }

  #remember(id: string, transformer: LocalValueTransformer, now: number): void {
    const known = this.#seeds.get(id);
    if (known !== undefined) {
      known.usedAt = now;
      return;
    }
    // Seeds unused for a day go when a new one comes: a handful per key id and restart.
    for (const [other, entry] of this.#seeds) if (now - entry.usedAt >= seedCacheTtlMs) this.#seeds.delete(other);
    this.#seeds.set(id, { transformer, usedAt: now });
    this.#metrics?.seedCacheSize(this.name, this.#seeds.size);
  }
}
