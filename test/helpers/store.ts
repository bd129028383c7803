// Real Stores over the memory backend for unit tests of the Store and of the types'
// strategies: a write goes through the whole lifecycle, as a request's would.
import { isStatusError, type KubeObject, type StatusCause } from '../../src/api/index.ts';
import { runInRequestContext } from '../../src/api/request-context.ts';
import { AdmissionChain, type AdmissionPlugin } from '../../src/admission/chain.ts';
import { builtinResourceTypes } from '../../src/registry/builtin/index.ts';
import { encodeForStorage } from '../../src/registry/codec.ts';
import { objectKey } from '../../src/registry/keys.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { Store, type WriteOptions } from '../../src/registry/store.ts';
import type { Definitions } from '../../src/schema/index.ts';
import { MemoryBackend } from '../../src/storage/memory.ts';

export interface StoreFixture {
  store: Store;
  backend: MemoryBackend;
}

export interface MemoryStoreOptions {
  /** Where the type's schema is defined (default: the built-in definitions). */
  definitions?: Definitions;
  admission?: AdmissionPlugin[];
}

/** A Store for `type` over a fresh memory backend, with no watch cache: reads go to storage. */
export function memoryStore(type: ResourceType, opts: MemoryStoreOptions = {}): StoreFixture {
  const backend = new MemoryBackend();
  const store = new Store(type, backend, new AdmissionChain(opts.admission ?? []), undefined, { definitions: opts.definitions });
  return { store, backend };
}

export function builtinType(resource: string, opts: Parameters<typeof builtinResourceTypes>[0] = {}): ResourceType {
  const rt = builtinResourceTypes(opts).find((t) => t.resource === resource);
  if (rt === undefined) throw new Error(`no built-in type ${resource}`);
  return rt;
}

/** A write's outcome: the object it answered, or the causes of its 422 (any other error is thrown). */
export interface Outcome {
  obj: KubeObject;
  causes: StatusCause[];
}

async function outcome(write: Promise<KubeObject>, input: KubeObject): Promise<Outcome> {
  try {
    return { obj: await write, causes: [] };
  } catch (err) {
    if (!isStatusError(err) || err.reason !== 'Invalid') throw err;
    return { obj: input, causes: err.details?.causes ?? [] };
  }
}

/** What `write` answers and the warnings it sent: each text once, in order, as the server's Warning headers keep them. */
export async function withWarnings<T>(write: () => Promise<T>): Promise<{ result: T; warnings: string[] }> {
  const warnings: string[] = [];
  const addWarning = (text: string) => {
    if (!warnings.includes(text)) warnings.push(text);
  };
  const result = await runInRequestContext({ user: { name: 'tester', uid: '', groups: [] }, addWarning }, write);
  return { result, warnings };
}

/** A write's outcome with the warnings it sent. */
export interface Warned extends Outcome {
  warnings: string[];
}

async function warned(write: () => Promise<Outcome>): Promise<Warned> {
  const { result, warnings } = await withWarnings(write);
  return { ...result, warnings };
}

/** POST of `input` to a Store of its own for `type`, with its warnings. */
export function createWarned(type: ResourceType, input: KubeObject): Promise<Warned> {
  return warned(() => tryCreate(memoryStore(type).store, input));
}

/**
 * A client that read `old` (stored as it is: what a create answered, say) writes `input` at
 * its resourceVersion, by a PUT or through `subresource`; with its warnings.
 */
export async function updateWarned(type: ResourceType, input: KubeObject, old: KubeObject, subresource = ''): Promise<Warned> {
  const fx = memoryStore(type);
  const stored = await putStored(fx, old);
  const sent = { ...input, metadata: { ...input.metadata, resourceVersion: stored.metadata.resourceVersion } };
  return warned(() => tryUpdate(fx.store, sent, subresource));
}

/** POST of `input` (into its metadata.namespace). */
export function tryCreate(store: Store, input: KubeObject, opts: WriteOptions = {}): Promise<Outcome> {
  return outcome(store.create(input.metadata.namespace ?? '', input, opts), input);
}

/** PUT of `input`, or a write through `subresource` ("status", "finalize"). */
export function tryUpdate(store: Store, input: KubeObject, subresource = ''): Promise<Outcome> {
  const { namespace = '', name = '', resourceVersion } = input.metadata;
  const write = subresource === ''
    ? store.update(namespace, name, input)
    : store.guaranteedUpdate(namespace, name, resourceVersion, {}, () => input, { subresource });
  return outcome(write.then((r) => r.object), input);
}

/** POST of `input` to a Store of its own for `type`. */
export function storeCreate(type: ResourceType, input: KubeObject): Promise<Outcome> {
  return tryCreate(memoryStore(type).store, input);
}

/**
 * A client that read `old` writes `input` (a PUT, or through `subresource`): `old` is
 * stored as it is in a Store of its own, and `input` sent at its resourceVersion.
 */
export async function storeUpdate(type: ResourceType, input: KubeObject, old: KubeObject, subresource = ''): Promise<Outcome> {
  const fx = memoryStore(type);
  const stored = await putStored(fx, old);
  return tryUpdate(fx.store, { ...input, metadata: { ...input.metadata, resourceVersion: stored.metadata.resourceVersion } }, subresource);
}

/**
 * Replaces the stored object with `obj` as it is, past strategy and validation: how a test
 * sets up state only other actors write (a status a kubelet or controller reported).
 */
export async function putStored(fx: StoreFixture, obj: KubeObject): Promise<KubeObject> {
  const key = objectKey(fx.store.type, obj.metadata.namespace ?? '', obj.metadata.name!);
  const current = await fx.backend.get(key);
  const stored: KubeObject = { ...obj, metadata: { ...obj.metadata } };
  delete stored.metadata.resourceVersion;
  const bytes = encodeForStorage(stored);
  const revision = current === undefined ? await fx.backend.create(key, bytes) : await fx.backend.update(key, bytes, current.modRevision);
  stored.metadata.resourceVersion = String(revision);
  return stored;
}

/** Metadata only the server sets (uid, creationTimestamp, resourceVersion) taken out, for comparing whole objects. */
export function withoutServerMeta(obj: KubeObject): KubeObject {
  const { uid: _uid, creationTimestamp: _created, resourceVersion: _rv, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** Causes as "field: message" lines, for compact assertions. */
export function fields(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}
