// An informer's local copy of the current objects, by key ("namespace/name", or
// "name" for cluster-scoped objects, as client-go's MetaNamespaceKeyFunc), with
// secondary indexes (client-go's Indexer) so that a controller finds related
// objects without scanning them all. The objects are the watch cache's shared,
// frozen ones: readers copy before changing.

import type { KubeObject } from '../../api/index.ts';

/** The values an object is found under in one index. */
export type IndexFunc = (object: KubeObject) => string[];

export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace === undefined || namespace === '' ? (name ?? '') : `${namespace}/${name ?? ''}`;
}

export class IndexedStore {
  readonly #objects = new Map<string, KubeObject>();
  readonly #indexers: Readonly<Record<string, IndexFunc>>;
  /** Per index: value → keys. */
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Readonly<Record<string, IndexFunc>> = {}) {
    this.#indexers = indexers;
    for (const name of Object.keys(indexers)) this.#indices.set(name, new Map());
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.#objects.get(key);
  }

  list(): KubeObject[] {
    return [...this.#objects.values()];
  }

  keys(): string[] {
    return [...this.#objects.keys()];
  }

  /** The objects found under `value` in index `index`. */
  byIndex(index: string, value: string): KubeObject[] {
    const values = this.#indices.get(index);
    if (values === undefined) throw new Error(`no index ${index}`);
    return [...(values.get(value) ?? [])].map((key) => this.#objects.get(key) as KubeObject);
  }

  /** Stores `object` under its key; answers what was stored there before. */
  set(object: KubeObject): KubeObject | undefined {
    const key = objectKey(object);
    const previous = this.#objects.get(key);
    if (previous !== undefined) this.#unindex(key, previous);
    this.#objects.set(key, object);
    this.#index(key, object);
    return previous;
  }

  /** Removes the object under `key`; answers it. */
  delete(key: string): KubeObject | undefined {
    const previous = this.#objects.get(key);
    if (previous === undefined) return undefined;
    this.#unindex(key, previous);
    this.#objects.delete(key);
    return previous;
  }

  #index(key: string, object: KubeObject): void {
    for (const [name, indexFunc] of Object.entries(this.#indexers)) {
      const values = this.#indices.get(name) as Map<string, Set<string>>;
      for (const value of indexFunc(object)) {
        let keys = values.get(value);
        if (keys === undefined) values.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  #unindex(key: string, object: KubeObject): void {
    for (const [name, indexFunc] of Object.entries(this.#indexers)) {
      const values = this.#indices.get(name) as Map<string, Set<string>>;
      for (const value of indexFunc(object)) {
        const keys = values.get(value);
        if (keys !== undefined && keys.delete(key) && keys.size === 0) values.delete(value);
      }
    }
  }
}
