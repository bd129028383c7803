// The apply worker's thread (see client.ts): runs a server-side apply of a built-in type
// on the object it is sent, through the same Store as the main thread but over a backend
// that holds that one object and keeps what the Store would write, with no admission and
// no cache. It answers the stored bytes, with the warnings the apply made; anything else
// (an error, a write that changes nothing) it answers as "not done", and the main thread
// serves the request itself.
import { parentPort } from 'node:worker_threads';
import { runInRequestContext, type RequestUser } from '../../api/request-context.ts';
import { AdmissionChain } from '../../admission/chain.ts';
import type { Backend, KeyValue } from '../../storage/backend.ts';
import { builtinResourceTypes } from '../builtin/index.ts';
import { Store } from '../store.ts';
import { offloadedResources, type OffloadAnswer, type OffloadedApply, type OffloadReady } from './messages.ts';

/** The one object an apply reads, and what the Store writes in its place. */
class OneObject {
  current: KeyValue | undefined;
  written: Uint8Array | undefined;

  async get(key: string): Promise<KeyValue | undefined> {
    return this.current?.key === key ? this.current : undefined;
  }

  async update(key: string, value: Uint8Array, expectRevision: number): Promise<number> {
    if (this.current?.key !== key || this.current.modRevision !== expectRevision) throw new Error('apply worker: not the object sent');
    this.written = value;
    return expectRevision + 1;
  }
}

const stores = new Map<string, { store: Store; backend: OneObject }>();

async function storeFor(resource: string): Promise<{ store: Store; backend: OneObject } | undefined> {
  let entry = stores.get(resource);
  if (entry === undefined) {
    const type = builtinResourceTypes().find((t) => `${t.group}/${t.resource}` === resource);
    if (type === undefined) return undefined;
    await type.load?.();
    const backend = new OneObject();
    entry = { store: new Store(type, backend as unknown as Backend, new AdmissionChain([])), backend };
    stores.set(resource, entry);
  }
  return entry;
}

async function handle(request: OffloadedApply): Promise<OffloadAnswer> {
  const entry = await storeFor(request.resource);
  if (entry === undefined) return { id: request.id, done: false };
  const { store, backend } = entry;
  backend.current = request.current;
  backend.written = undefined;
  const warnings: string[] = [];
  const user: RequestUser = request.user;
  try {
    await runInRequestContext({ user, addWarning: (text) => warnings.push(text) }, () => store.apply(request.namespace, request.name, request.applied, {
      fieldManager: request.fieldManager,
      force: request.force,
      fieldValidation: { directive: request.directive, duplicateFields: request.duplicateFields },
    }));
  } catch {
    return { id: request.id, done: false };
  } finally {
    backend.current = undefined;
  }
  const written = backend.written;
  backend.written = undefined;
  if (written === undefined) return { id: request.id, done: false };
  return { id: request.id, done: true, written, warnings };
}

// The types load first; the main thread sends applies once told.
let queue: Promise<void> = (async () => {
  for (const resource of offloadedResources) await storeFor(resource);
  parentPort!.postMessage({ ready: true } satisfies OffloadReady);
})();
// One apply at a time: the Store's one-object backend holds one request's object. Every
// request is answered, whatever failed before it.
parentPort!.on('message', (request: OffloadedApply) => {
  queue = queue
    .then(() => handle(request), (): OffloadAnswer => ({ id: request.id, done: false }))
    .catch((): OffloadAnswer => ({ id: request.id, done: false }))
    .then((answer) => parentPort!.postMessage(answer, answer.done ? [answer.written.buffer as ArrayBuffer] : []));
});
