export * from './backend.ts';
export { MemoryBackend, type MemoryBackendOptions } from './memory.ts';
export { SqliteBackend, type SqliteBackendOptions } from './sqlite.ts';
export { Compactor, type CompactorOptions } from './compactor.ts';
export { openBackend, type BackendKind, type OpenBackendOptions } from './open-backend.ts';
