// What controllers import from their runtime: informers, the work queue, the controller loop and leader election.
export { Backoff } from './backoff.ts';
export type { Clock, Timer } from './clock.ts';
export { Controller, type ReconcileResult } from './controller.ts';
export { IndexedStore, objectKey } from './indexed-store.ts';
export { LeaderElector, defaultIdentity, defaultLeaderElectionTimings, leaderElectionTimingsProblem, type LeaderElectorOptions, type LeaseStore } from './leader-election.ts';
export { Informer, type InformerSource } from './informer.ts';
export { WorkQueue } from './work-queue.ts';
