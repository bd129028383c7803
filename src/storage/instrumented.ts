// A Backend that reports how long each call took (for etcd_request_duration_seconds,
// which kube-apiserver keeps for its storage whatever it is), by operation and resource.
import type { Backend } from './backend.ts';

const timed = new Set(['get', 'list', 'create', 'update', 'delete', 'currentRevision', 'compact']);

/** The resource a key belongs to: `/registry/configmaps/ns/name` → `configmaps`. */
function resourceOf(key: unknown): string {
  if (typeof key !== 'string') return '';
  const parts = key.split('/').filter((p) => p !== '');
  return parts[0] === 'registry' ? parts[1] ?? '' : parts[0] ?? '';
}

/** `backend`, with `observe` told of every timed call as it settles. */
export function instrumentedBackend(backend: Backend, observe: (operation: string, resource: string, seconds: number) => void): Backend {
  // Methods bound once, not on every call.
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(backend, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      let method = methods.get(property);
      if (method !== undefined) return method;
      const fn = (value as (...args: unknown[]) => unknown).bind(target);
      method = typeof property !== 'string' || !timed.has(property) ? fn : (...args: unknown[]) => {
        const started = performance.now();
        const result = fn(...args) as Promise<unknown>;
        const done = () => observe(property, resourceOf(args[0]), (performance.now() - started) / 1000);
        result.then(done, done);
        return result;
      };
      methods.set(property, method);
      return method;
    },
  });
}
