// coordination.k8s.io/v1 Lease.

import type { Definitions } from '../types.ts';
import { int32, listOf, microTime, object, ref, str, topLevel } from './build.ts';

const COORDINATION = 'io.k8s.api.coordination.v1.';
const coordinationV1 = { group: 'coordination.k8s.io', version: 'v1' };

export const coordinationDefinitions: Definitions = {
  [COORDINATION + 'Lease']: topLevel(coordinationV1, 'Lease', 'A lease, for leader election and node heartbeats.', {
    spec: ref(COORDINATION + 'LeaseSpec', 'The lease.'),
  }),
  [COORDINATION + 'LeaseList']: listOf(coordinationV1, 'Lease', COORDINATION + 'Lease', 'The leases.'),
  [COORDINATION + 'LeaseSpec']: object('Who holds a lease and for how long.', {
    acquireTime: microTime('When the current holder acquired the lease.'),
    holderIdentity: str('Identity of the current holder.'),
    leaseDurationSeconds: int32('Seconds candidates must wait after the last renewal before taking the lease.'),
    leaseTransitions: int32('How many times the lease changed holder.'),
    preferredHolder: str('Signals the holder to release the lease so this identity can take it; needs strategy.'),
    renewTime: microTime('When the holder last renewed the lease.'),
    strategy: str('How coordinated leader election picks holders, such as "OldestEmulationVersion".'),
  }),
};
