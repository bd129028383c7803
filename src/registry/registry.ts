// The served resources by group, version and resource: what discovery and routing look up.
import type { ResourceType } from './resource-type.ts';
import type { Store } from './store.ts';

export interface ServedResource {
  type: ResourceType;
  store: Store;
}

/** The served resources, looked up by group, version and plural name. */
export class ResourceRegistry {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly listeners = new Set<() => void>();

  add(resource: ServedResource): void {
    const { group, version, resource: plural } = resource.type;
    this.byPath.set(`${group}/${version}/${plural}`, resource);
    this.changed();
  }

  remove(group: string, version: string, resource: string): void {
    if (this.byPath.delete(`${group}/${version}/${resource}`)) this.changed();
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  all(): ServedResource[] {
    return [...this.byPath.values()];
  }

  /** Called whenever the set of served resources changes (discovery and OpenAPI rebuild). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
