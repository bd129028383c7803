// What other folders use of patch/: applyPatch for the PATCH handler, and applying
// a JSON Patch for admission webhooks.

export { applyPatch, patchMediaTypes, type PatchContext, type PatchKind } from './apply-patch.ts';
export { applyJsonPatch, patchedNumberForms } from './json-patch.ts';
