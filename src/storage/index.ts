export * from './backend.ts';
export { MemoryBackend } from './memory.ts';
export { SqliteBackend } from './sqlite.ts';
export { Compactor } from './compactor.ts';
export { openBackend } from './open-backend.ts';
