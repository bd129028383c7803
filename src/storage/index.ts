// What other folders import from storage/: the Backend contract and its implementations.
export * from './backend.ts';
export { MemoryBackend } from './memory.ts';
export { SqliteBackend } from './sqlite.ts';
export { EtcdBackend } from './etcd.ts';
export { Compactor, compactorFor } from './compactor.ts';
export { SharedCompactor, type CompactionClock } from './shared-compactor.ts';
export { openBackend } from './open-backend.ts';
export { EncryptingBackend, type TransformerForKey } from './encrypting-backend.ts';
