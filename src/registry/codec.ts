// Stored bytes to objects and back; the resourceVersion is the key's revision, never stored.
import { groupResourceString, StatusError, type GroupResource, type KubeObject, type StatusCause } from '../api/index.ts';
import type { KeyValue } from '../storage/backend.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Stored bytes never carry the resourceVersion: it is the key's modRevision, as with etcd. */
export function encodeForStorage(obj: KubeObject): Uint8Array {
  const { resourceVersion: _rv, selfLink: _selfLink, ...meta } = obj.metadata;
  // kind, apiVersion and metadata first, as Kubernetes serialises objects.
  const { kind, apiVersion, metadata: _metadata, ...rest } = obj;
  const bytes = encoder.encode(JSON.stringify({ kind, apiVersion, metadata: meta, ...rest }));
  if (typeof kind === 'string' && typeof apiVersion === 'string') encodedHere.add(bytes);
  return bytes;
}

/** The values encodeForStorage made (while they live), which therefore decode. */
const encodedHere = new WeakSet<Uint8Array>();

/** Counts a value encodeForStorage made on another thread of this process (the apply worker's) as made here. */
export function markEncodedHere(value: Uint8Array): void {
  encodedHere.add(value);
}

/**
 * Whether a stored value is one encodeForStorage made in this process (the backend kept
 * the array it was given): it decodes, to an object with kind and apiVersion, so the watch
 * cache may decode it when first needed rather than on arrival. Values read back from
 * storage, decrypted, or written by anyone else are not.
 */
export function isEncodedHere(kv: KeyValue): boolean {
  return kv.transformError === undefined && encodedHere.has(kv.value);
}

/**
 * A stored value that cannot be read: its bytes do not transform (decryption failed) or do
 * not decode. Answered 500 InternalError naming the key, worded as upstream's StorageError
 * for a corrupt object (code 7), which is also what marks it for unsafe deletion.
 */
export class CorruptObjectError extends StatusError {
  readonly key: string;
  /** Upstream's StorageError text, which a list's aggregated error repeats per key. */
  readonly storageMessage: string;

  constructor(key: string, storageMessage: string) {
    super(500, 'InternalError', `Internal error occurred: ${storageMessage}`, { causes: [{ message: storageMessage }] });
    this.key = key;
    this.storageMessage = storageMessage;
  }
}

export function isCorruptObjectError(err: unknown): err is CorruptObjectError {
  return err instanceof CorruptObjectError;
}

/** Upstream's corruptObjectError inside a StorageError: a transform failure carries no revision, a decode failure the key's. */
export function corruptObject(kv: KeyValue, cause: string, untransformable: boolean): CorruptObjectError {
  const what = untransformable ? 'data from the storage is not transformable revision=0' : `object not decodable revision=${kv.modRevision}`;
  return new CorruptObjectError(kv.key, `StorageError: corrupt object, Code: 7, Key: ${kv.key}, ResourceVersion: 0, AdditionalErrorMsg: ${what}: ${cause}`);
}

/** At most this many corrupt keys are named by a list's error, as upstream. */
const maxListedCorrupt = 100;

/**
 * What a list that met corrupt objects answers (upstream's aggregated storage read error,
 * 1.32+): 500 StorageReadError, one cause per key, and past 100 a "TooMany" cause.
 */
export function corruptListError(gr: GroupResource, errors: Error[]): StatusError {
  const causes: StatusCause[] = errors.slice(0, maxListedCorrupt).map((err) => (isCorruptObjectError(err)
    ? { reason: 'UnexpectedServerResponse', field: err.key, message: err.storageMessage }
    : { reason: 'UnexpectedServerResponse', message: err.message }));
  if (errors.length > maxListedCorrupt) causes.push({ reason: 'TooMany', message: 'too many errors, the list is truncated' });
  const details = { ...(gr.group === '' ? {} : { group: gr.group }), kind: gr.resource, name: 'list', causes };
  return new StatusError(500, 'StorageReadError', `failed to read one or more ${groupResourceString(gr)} from the storage`, details);
}

export function decodeFromStorage(kv: KeyValue): KubeObject {
  if (kv.transformError !== undefined) throw corruptObject(kv, kv.transformError, true);
  let obj: KubeObject;
  try {
    obj = JSON.parse(decoder.decode(kv.value)) as KubeObject;
  } catch (err) {
    throw corruptObject(kv, (err as Error).message, false);
  }
  if (obj === null || typeof obj !== 'object' || typeof obj.metadata !== 'object' || obj.metadata === null) {
    throw corruptObject(kv, 'Object \'Kind\' is missing or metadata is not an object', false);
  }
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/** Objects a Store is writing as they are served, by the bytes that encode them (offerWritten). */
const writtenObjects = new WeakMap<Uint8Array, KubeObject>();

/**
 * Tells the watch cache, before the write, that `value` (encodeForStorage's, stored as it
 * is served) encodes `obj`: when the write's event arrives, the cache takes the object as
 * the decoded form of the new state (writtenObject) before anyone reads it, rather than
 * read metadata views from, or decode, its JSON. What is below the object's top level and
 * metadata is then shared and frozen: the writer must not change it from here on (the
 * resourceVersion it sets on its own metadata is not shared). A write that fails leaves
 * no event, and the entry goes with the bytes.
 */
export function offerWritten(value: Uint8Array, obj: KubeObject): void {
  writtenObjects.set(value, obj);
}

/** The object a Store in this process offered for the stored value, while it lives. */
export function writtenObject(kv: KeyValue): KubeObject | undefined {
  return kv.transformError === undefined ? writtenObjects.get(kv.value) : undefined;
}

/** Metadata views of values encoded on another thread, by those bytes (offerWrittenView). */
const writtenViews = new WeakMap<Uint8Array, string>();

/**
 * Tells the watch cache, before the write, the metadata view of the object `value` encodes
 * (metadataViewJson's, made where the object was: the apply worker), for a value whose
 * object this thread never decodes. The new state takes it when the write's event arrives
 * (writtenView), so the informers that read every object's metadata need not scan the
 * JSON for it (~40 µs for a 19 KB Deployment, most of it the managed fields skipped).
 */
export function offerWrittenView(value: Uint8Array, view: string): void {
  writtenViews.set(value, view);
}

/** The metadata view offered for the stored value, while it lives. */
export function writtenView(kv: KeyValue): string | undefined {
  return kv.transformError === undefined ? writtenViews.get(kv.value) : undefined;
}

/** What a write stored for the object it answers with, and at which revision (see writtenJson). */
const written = new WeakMap<KubeObject, { value: Uint8Array; revision: number }>();

/**
 * Notes that `obj`, as the Store answers a write with it, is what `value` stores
 * (encodeForStorage's) at `revision` (its resourceVersion), so that the answer's JSON can
 * be made from the stored bytes instead of encoding the object again. The object must
 * not change afterwards.
 */
export function rememberWritten(obj: KubeObject, value: Uint8Array, revision: number): void {
  written.set(obj, { value, revision });
}

/** The JSON of an object a write answered with, from its stored bytes, when rememberWritten was told of it. */
export function writtenJson(obj: KubeObject): Uint8Array | undefined {
  const stored = written.get(obj);
  return stored === undefined ? undefined : jsonWithResourceVersion(stored.value, stored.revision);
}

const metadataOpen = Buffer.from('"metadata":{');
const closingBrace = 0x7d;

/**
 * The JSON the API shows for a stored value, made from the stored bytes by inserting the
 * resourceVersion (the key's modRevision) into metadata, instead of decoding and encoding
 * again. encodeForStorage writes kind, apiVersion and metadata first, so the first
 * `"metadata":{` is the object's own. Undefined when the bytes are not of that form.
 */
export function storedJsonWithResourceVersion(kv: KeyValue): Uint8Array | undefined {
  return jsonWithResourceVersion(kv.value, kv.modRevision);
}

function jsonWithResourceVersion(value: Uint8Array, revision: number): Uint8Array | undefined {
  const made = recentlyMade.get(value);
  if (made !== undefined && made.revision === revision) return made.json;
  const stored = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const at = stored.indexOf(metadataOpen);
  if (at < 0 || at > 256) return undefined;
  const insertAt = at + metadataOpen.length;
  const field = Buffer.from(`"resourceVersion":"${revision}"${stored[insertAt] === closingBrace ? '' : ','}`);
  // An array of its own, not a slice of Buffer's shared pool that would keep 8 KiB alive per object.
  const json = new Uint8Array(stored.length + field.length);
  json.set(stored.subarray(0, insertAt), 0);
  json.set(field, insertAt);
  json.set(stored.subarray(insertAt), insertAt + field.length);
  recentlyMade.set(value, { revision, json });
  if (recentlyMade.size > recentlyMadeLimit) recentlyMade.delete(recentlyMade.keys().next().value!);
  return json;
}

/**
 * The JSON last made for the most recent stored values, with the revision it shows. A
 * write's answer and the watch cache's event are made from the same stored bytes within a
 * turn or two: they share one copy (the callers only read it). Bounded, not a WeakMap: the
 * stored bytes can outlive the write by minutes, and their JSON should not live with them.
 */
const recentlyMade = new Map<Uint8Array, { revision: number; json: Uint8Array }>();
const recentlyMadeLimit = 256;
