// What other folders import from apply/: field sets, managed fields and server-side apply.
export { displayPath, fieldElement, keyElement, valueElement } from './field-path.ts';
export { FieldSet, fieldSetOf } from './field-set.ts';
export { decodeFieldsV1, encodeFieldsV1 } from './fields-v1.ts';
export type { Topology } from './topology.ts';
export { compileTopology } from './topology.ts';
export { fieldsOf } from './fields-of.ts';
export { compare } from './compare.ts';
export { merge } from './merge.ts';
export type { Conflict } from './conflicts.ts';
export { applyConflictError } from './conflicts.ts';
export type { ManagedFieldsScope } from './field-manager.ts';
export type { Versions } from './updater.ts';
export { ConversionPending } from './updater.ts';
export { apply, updateManagedFields } from './field-manager.ts';
export { managedFieldsProblem } from './managed-fields.ts';
export { lastAppliedAnnotation } from './last-applied.ts';
export { managerFromUserAgent, managerOrUserAgent } from './user-agent.ts';
export { parentEntriesOf, scaleApiVersion, scaleEntriesOf, type ReplicasPathAt } from './scale-entries.ts';
