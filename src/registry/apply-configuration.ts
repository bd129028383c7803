// What an apply configuration (the body of an apply patch) must say of the object it
// applies to, checked before anything is merged, as upstream's apply patcher does: by the
// PATCH handler, and by the apply worker for the bodies it decodes.

/**
 * The 400 message for a configuration that names another object than the URL (by name,
 * or by namespace for a namespaced type); undefined when it names this one or none.
 */
export function configurationTargetError(applied: unknown, name: string, namespace: string, namespaced: boolean): string | undefined {
  const meta = (applied as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  if (typeof meta?.name === 'string' && meta.name !== '' && meta.name !== name) {
    return `the name of the object (${meta.name}) does not match the name on the URL (${name})`;
  }
  if (namespaced && typeof meta?.namespace === 'string' && meta.namespace !== '' && meta.namespace !== namespace) {
    return 'the namespace of the provided object does not match the namespace sent on the request';
  }
  return undefined;
}
