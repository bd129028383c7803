// What other folders use of patch/: applyPatch for the PATCH handler, and the pure
// functions behind it.

export { applyPatch, maxPatchNestingDepth, patchMediaTypes, type PatchContext, type PatchKind } from './apply-patch.ts';
export { applyJsonPatch, decodeJsonPatch, defaultMaxCopyBytes, maxJSONPatchOperations } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { PatchError, isPatchError, toStatusError } from './patch-error.ts';
export { fieldPatchMeta, listItemSchema, patchMetaAt, type PatchMeta } from './patch-meta.ts';
export { applyStrategicMergePatch } from './strategic-merge.ts';

