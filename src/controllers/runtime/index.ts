export { Backoff, defaultBackoff, type BackoffOptions } from './backoff.ts';
export { sleep, systemClock, type Clock, type Timer } from './clock.ts';
export { Controller, type ControllerOptions, type ReconcileResult } from './controller.ts';
export { IndexedStore, objectKey, type IndexFunc } from './indexed-store.ts';
export { Informer, type InformerHandlers, type InformerOptions, type InformerSource } from './informer.ts';
export { WorkQueue, type WorkQueueOptions } from './work-queue.ts';
