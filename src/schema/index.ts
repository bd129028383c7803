// What other folders import from schema/.
export type { Definitions, Schema } from './types.ts';
export { builtinDefinitions } from './builtin/index.ts';
export { schemaRef } from './builtin/index.ts';
export { validate, builtinValidation } from './validate.ts';
export type { ValidateOptions } from './validate.ts';
export { prune } from './prune.ts';
export { addGoZeroValues } from './go-zero.ts';
export { applyDefaults } from './defaults.ts';
export { goDecoding, type GoDecoding } from './go-decoding.ts';
export { goTypeError, zeroNullElements } from './go-type-errors.ts';
export { cborDecodeError, cborObjectMetaDecodeError, cborUnknownField } from './go-cbor-decoding.ts';
export { canonicalizeQuantities, quantitySites } from './quantities.ts';
export { integerDecodeError, integerSites, intOrStringDecodeError, intOrStringSites } from './integers.ts';
export { canonicalizeTimes, timeSites } from './times.ts';
export { bytesSites, canonicalizeBytes } from './bytes.ts';
