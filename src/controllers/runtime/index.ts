// What controllers import from their runtime: informers, the work queue and the controller loop.
export { Backoff } from './backoff.ts';
export type { Clock, Timer } from './clock.ts';
export { Controller, type ReconcileResult } from './controller.ts';
export { IndexedStore, objectKey } from './indexed-store.ts';
export { Informer, type InformerSource } from './informer.ts';
export { WorkQueue } from './work-queue.ts';
