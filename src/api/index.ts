export * from './types.ts';
export * from './errors.ts';
export * from './table.ts';
