// The apply worker thread's entry point (registry/apply-offload/): started by the main
// thread's ApplyOffload, from the file applyWorkerEntry (serve.ts) finds. It gives the
// worker the PATCH handler's decoding of apply bodies (JSON is YAML: kubectl sends its
// apply configurations as JSON).
import { parentPort } from 'node:worker_threads';
import { decodeBodyLoading } from '../encoding/decode.ts';
import { serveApplies } from '../registry/apply-offload/worker.ts';

serveApplies(parentPort!, (body, findDuplicates) => decodeBodyLoading('application/yaml', body, { findDuplicates }));
