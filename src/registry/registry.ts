// The served resources by group, version and resource: what discovery and routing look up.
import { resourcePrefix } from './keys.ts';
import type { ResourceType } from './resource-type.ts';
import type { Store } from './store.ts';

export interface ServedResource {
  type: ResourceType;
  store: Store;
  /**
   * Kept for the server's own use but not served (`--runtime-config` turned its version or
   * resource off): no route, no discovery, no OpenAPI, no APIService; in-process controllers
   * still reach its Store.
   */
  disabled?: boolean;
}

/** The served resources, looked up by group, version and plural name. */
export class ResourceRegistry {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly listeners = new Set<() => void>();
  /** equivalents() by its arguments, until the resources change (asked on writes that admission webhooks see). */
  private readonly equivalentsByKey = new Map<string, ServedResource[]>();

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

  /** Every resource registered, served or not (see `disabled`): what the server's own code works with. */
  all(): ServedResource[] {
    return [...this.byPath.values()];
  }

  /**
   * The served resources stored with this one, itself included, in registration order
   * (upstream's equivalent resources: its other versions, and another group's name for the
   * same objects, such as events.k8s.io's Events); with a subresource, those serving it.
   */
  equivalents(group: string, version: string, resource: string, subresource = ''): ServedResource[] {
    const key = `${group}/${version}/${resource}/${subresource}`;
    let found = this.equivalentsByKey.get(key);
    if (found === undefined) {
      const own = this.lookup(group, version, resource);
      const prefix = own === undefined ? undefined : resourcePrefix(own.type);
      found = prefix === undefined ? [] : this.served().filter((r) => resourcePrefix(r.type) === prefix && (subresource === '' || r.type.subresources.includes(subresource)));
      this.equivalentsByKey.set(key, found);
    }
    return found;
  }

  /** The resources clients can reach: what routing, discovery and OpenAPI show. */
  served(): ServedResource[] {
    return this.all().filter((r) => r.disabled !== true);
  }

  /** Called whenever the set of served resources changes (discovery and OpenAPI rebuild). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.equivalentsByKey.clear();
    for (const listener of this.listeners) listener();
  }
}
