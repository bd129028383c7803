// A resource whose objects live for a time after their last write (kube-apiserver's
// TTLFunc: Events, `--event-ttl`): its Store writes through this view of the backend.
import type { Backend, PutOptions } from './backend.ts';

/** `backend`, with every create and update made with `ttlSeconds` (whole seconds, > 0) unless the caller gives its own. */
export function withTimeToLive(backend: Backend, ttlSeconds: number): Backend {
  const defaults: PutOptions = { ttlSeconds };
  const create: Backend['create'] = (key, value, opts) => backend.create(key, value, opts ?? defaults);
  const update: Backend['update'] = (key, value, expectRevision, opts) => backend.update(key, value, expectRevision, opts ?? defaults);
  // Methods bound once, not on every call.
  const methods = new Map<PropertyKey, unknown>([['create', create], ['update', update]]);
  return new Proxy(backend, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      let method = methods.get(property);
      if (method === undefined) methods.set(property, (method = (value as (...args: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
}
