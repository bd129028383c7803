// Field errors live in api/ (schema validation builds them too); re-exported here for
// the hand-written validation of built-in types.
export * from '../../api/field-errors.ts';
