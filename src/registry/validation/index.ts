// What other files import from registry/validation/: ObjectMeta and name validation.
export { validateObjectMeta, validateObjectMetaUpdate, totalAnnotationSizeLimit } from './object-meta.ts';
export { validateName } from './names.ts';
export type { NameRule } from './names.ts';
export * as field from './field.ts';
