// Several in-process Plinth servers on one storage backend, as replicas share one etcd
// cluster: each has its own watch caches, registry and controllers, and the backend is
// closed once the last replica stops.
import type { Backend } from '../../src/storage/backend.ts';
import { MemoryBackend } from '../../src/storage/memory.ts';
import type { Config } from '../../src/cli/config.ts';
import { startServer, type TestServer } from './server.ts';

/**
 * Hands `backend` to `count` users: each gets a view whose close() only releases its
 * share, and the backend itself closes with the last one.
 */
export function sharedBackend(backend: Backend, count: number): Backend[] {
  let open = count;
  const view = (): Backend => {
    let closed = false;
    return new Proxy(backend, {
      get(target, property, receiver) {
        if (property === 'close') {
          return async () => {
            if (closed) return;
            closed = true;
            if (--open === 0) await target.close();
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  return Array.from({ length: count }, view);
}

/** `count` replicas on one backend (a new MemoryBackend unless given); stop each with stop(). */
export async function startReplicas(count: number, overrides: Partial<Config> = {}, backend: Backend = new MemoryBackend()): Promise<TestServer[]> {
  const views = sharedBackend(backend, count);
  const replicas: TestServer[] = [];
  try {
    for (const view of views) replicas.push(await startServer(overrides, { backend: view }));
  } catch (err) {
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
    throw err;
  }
  return replicas;
}
