export type { Definitions, Schema } from './types.ts';
export { reachableDefinitions, refName, resolve, walkSchema } from './resolve.ts';
export { builtinDefinitions } from './builtin/index.ts';
export { schemaRef } from './builtin/build.ts';
