// Resource quantities for the built-in types' validation: they live in api/ (admission plugins use them too).
export * from '../../api/quantity.ts';
