export { validateObjectMeta, validateObjectMetaUpdate, validateLabels, validateAnnotations, totalAnnotationSizeLimit } from './object-meta.ts';
export { validateName, isDNS1123Label, isDNS1123Subdomain, isDNS1035Label, isValidPathSegmentName, isQualifiedName, isLabelValue } from './names.ts';
export type { NameRule } from './names.ts';
export * as field from './field.ts';
