import { MemoryBackend } from '../../src/storage/index.ts';
import { storageContract } from './contract.ts';

storageContract('memory', async (opts) => new MemoryBackend(opts));
