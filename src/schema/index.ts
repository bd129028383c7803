// What other folders import from schema/.
export type { Definitions, Schema } from './types.ts';
export { builtinDefinitions } from './builtin/index.ts';
export { schemaRef } from './builtin/index.ts';
export { validate, builtinValidation } from './validate.ts';
export type { ValidateOptions } from './validate.ts';
export { prune } from './prune.ts';
export { addGoZeroValues } from './go-zero.ts';
export { applyDefaults } from './defaults.ts';
export { canonicalizeQuantities, quantitySites, type QuantitySites } from './quantities.ts';
export { int32DecodeError, int32Sites, type Int32Sites } from './int32.ts';
export { canonicalizeTimes, timeSites, type TimeSites } from './times.ts';
