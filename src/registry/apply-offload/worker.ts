// The apply worker's work (see client.ts; the thread's entry point is cli/apply-worker.ts,
// which composes it): runs a server-side apply of a built-in type
// on the object it is sent, through the same Store as the main thread but over a backend
// that holds that one object and keeps what the Store would write, with no admission and
// no cache (but the objects it wrote, while they are what is stored: see `kept`). It
// answers the stored bytes, with the warnings the apply made; anything else
// (an error, a write that changes nothing) it answers as "not done", and the main thread
// serves the request itself.
import { runInRequestContext, type RequestUser } from '../../api/request-context.ts';
import { AdmissionChain } from '../../admission/chain.ts';
import { configurationTargetError } from '../apply-configuration.ts';
import type { Backend, KeyValue } from '../../storage/backend.ts';
import { decodedForm } from '../../cache/encode.ts';
import { metadataViewJson } from '../../cache/metadata-view.ts';
import type { KubeObject } from '../../api/index.ts';
import { builtinResourceTypes } from '../builtin/index.ts';
import { writtenObject } from '../codec.ts';
import { Store } from '../store.ts';
import { keptAnswers, offloadedResources, type OffloadAnswer, type OffloadedApply, type OffloadReady } from './messages.ts';

/** The one object an apply reads, and what the Store writes in its place. */
class OneObject {
  current: KeyValue | undefined;
  written: Uint8Array | undefined;
  /** The object the Store encoded into `written` (offered to the codec ahead of the write). */
  writtenFrom: KubeObject | undefined;

  async get(key: string): Promise<KeyValue | undefined> {
    return this.current?.key === key ? this.current : undefined;
  }

  async update(key: string, value: Uint8Array, expectRevision: number): Promise<number> {
    if (this.current?.key !== key || this.current.modRevision !== expectRevision) throw new Error('apply worker: not the object sent');
    this.written = value;
    this.writtenFrom = writtenObject({ key, value, createRevision: 0, modRevision: expectRevision });
    return expectRevision + 1;
  }
}

/**
 * A Store whose read of the object sent may be answered with the object this thread wrote
 * for it, when the main thread stored that answer and sends its bytes back (decoding 19 KB
 * of JSON was a ninth of the worker's time). Once: a fresh copy decodes the bytes.
 */
class KeepingStore extends Store {
  decodedOnce: { kv: KeyValue; object: KubeObject } | undefined;

  override decode(kv: KeyValue): KubeObject {
    const known = this.decodedOnce;
    this.decodedOnce = undefined;
    return known?.kv === kv ? known.object : super.decode(kv);
  }
}

const stores = new Map<string, { store: KeepingStore; backend: OneObject }>();
const noBytes = new Uint8Array(0);

async function storeFor(resource: string): Promise<{ store: KeepingStore; backend: OneObject } | undefined> {
  let entry = stores.get(resource);
  if (entry === undefined) {
    const type = builtinResourceTypes().find((t) => `${t.group}/${t.resource}` === resource);
    if (type === undefined) return undefined;
    await type.load?.();
    const backend = new OneObject();
    entry = { store: new KeepingStore(type, backend as unknown as Backend, new AdmissionChain([])), backend };
    stores.set(resource, entry);
  }
  return entry;
}

/**
 * The objects this thread wrote for its latest answers, by key (at most `keptAnswers`, the
 * least recently written go first): the main thread names the answer whose bytes an
 * apply's object is (OffloadedApply.fromAnswer).
 */
const kept = new Map<string, { answer: number; object: KubeObject }>();

function keep(key: string, answer: number, object: KubeObject): void {
  kept.delete(key);
  kept.set(key, { answer, object });
  if (kept.size > keptAnswers) kept.delete(kept.keys().next().value!);
}

async function handle(request: OffloadedApply, decodeBody: ApplyBodyDecoder): Promise<OffloadAnswer> {
  const entry = await storeFor(request.resource);
  if (entry === undefined) return { id: request.id, done: false };
  const { store, backend } = entry;
  const own = kept.get(request.current.key);
  const reused = own !== undefined && own.answer === request.fromAnswer;
  if (!reused && request.current.value === undefined) return { id: request.id, done: false, missing: true };
  // Without its bytes, the object is the one kept: a second decode of it finds none and fails the apply.
  const current: KeyValue = { ...request.current, value: request.current.value ?? noBytes };
  backend.current = current;
  backend.written = undefined;
  backend.writtenFrom = undefined;
  // Made as decoding the bytes would give it, now that its revision is known.
  store.decodedOnce = reused ? { kv: current, object: decodedForm(own.object, current.modRevision) } : undefined;
  const warnings: string[] = [];
  const user: RequestUser = request.user;
  try {
    const { value, duplicateFields } = await decodedConfiguration(request, store.type.namespaced, decodeBody);
    await runInRequestContext({ user, addWarning: (text) => warnings.push(text), ...(request.allowPrivileged ? {} : { allowPrivileged: false }) }, () => store.apply(request.namespace, request.name, value, {
      fieldManager: request.fieldManager,
      force: request.force,
      fieldValidation: { directive: request.directive, duplicateFields },
    }));
  } catch {
    return { id: request.id, done: false };
  } finally {
    backend.current = undefined;
    store.decodedOnce = undefined;
  }
  const { written, writtenFrom } = backend;
  backend.written = undefined;
  backend.writtenFrom = undefined;
  if (written === undefined) return { id: request.id, done: false };
  if (writtenFrom !== undefined) keep(current.key, request.id, writtenFrom);
  const metadataView = writtenFrom === undefined ? undefined : metadataViewJson(writtenFrom);
  return { id: request.id, done: true, written, warnings, reused, metadataView };
}

/**
 * Decodes an apply configuration's body as the PATCH handler does (YAML, which JSON is),
 * finding the fields given twice when asked; throws when it does not decode. The thread's
 * entry point supplies it: bodies are the endpoints' to decode (encoding/).
 */
export type ApplyBodyDecoder = (body: Uint8Array, findDuplicates: boolean) => Promise<{ value: unknown; duplicateFields: string[] }>;

/**
 * The configuration as the PATCH handler has it: a body that does not decode, or that
 * names another object than the request, throws (the main thread answers it).
 */
async function decodedConfiguration(request: OffloadedApply, namespaced: boolean, decodeBody: ApplyBodyDecoder): Promise<{ value: unknown; duplicateFields: string[] }> {
  const configuration = request.configuration;
  if (!('body' in configuration)) return configuration;
  const decoded = await decodeBody(configuration.body, request.directive !== 'Ignore');
  const mismatch = configurationTargetError(decoded.value, request.name, request.namespace, namespaced);
  if (mismatch !== undefined) throw new Error(mismatch);
  return decoded;
}

/** What the thread talks to the main thread through (its parentPort). */
export interface ApplyWorkerPort {
  on(event: 'message', listener: (request: OffloadedApply) => void): unknown;
  postMessage(message: OffloadAnswer | OffloadReady, transfer: ArrayBuffer[]): void;
}

/**
 * Serves the main thread's applies on `port`, decoding the bodies sent undecoded with
 * `decodeBody`: the types load first, and the main thread sends applies once told.
 */
export function serveApplies(port: ApplyWorkerPort, decodeBody: ApplyBodyDecoder): void {
  let queue: Promise<void> = (async () => {
    for (const resource of offloadedResources) await storeFor(resource);
    port.postMessage({ ready: true } satisfies OffloadReady, []);
  })();
  // One apply at a time: the Store's one-object backend holds one request's object. Every
  // request is answered, whatever failed before it.
  port.on('message', (request: OffloadedApply) => {
    queue = queue
      .then(() => handle(request, decodeBody), (): OffloadAnswer => ({ id: request.id, done: false }))
      .catch((): OffloadAnswer => ({ id: request.id, done: false }))
      .then((answer) => port.postMessage(answer, answer.done ? [answer.written.buffer as ArrayBuffer] : []));
  });
}
