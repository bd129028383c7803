// What other folders import from storage/: the Backend contract and its implementations.
export * from './backend.ts';
export { MemoryBackend } from './memory.ts';
export { SqliteBackend } from './sqlite.ts';
// The etcd backend is imported from './etcd.ts' where needed: its client (gRPC, protobufjs) loads only with --storage etcd.
export { Compactor, compactorFor } from './compactor.ts';
export { SharedCompactor, type CompactionClock } from './shared-compactor.ts';
export { openBackend } from './open-backend.ts';
export { EncryptingBackend, type TransformerForKey } from './encrypting-backend.ts';
export { grpcKmsService } from './kms-grpc.ts';
export { transformationStatus, type TransformationObserver } from './value-transformers.ts';
export { withTimeToLive } from './time-to-live.ts';
