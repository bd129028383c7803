// What other folders import from api/: the wire types, errors and tables.
export * from './types.ts';
export * from './errors.ts';
export * from './table.ts';
export * from './nesting.ts';
