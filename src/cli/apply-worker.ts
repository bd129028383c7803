// The apply worker thread's entry point (registry/apply-offload/): started by the main
// thread's ApplyOffload, from the file applyWorkerEntry (serve.ts) finds.
import { parentPort } from 'node:worker_threads';
import { serveApplies } from '../registry/apply-offload/worker.ts';

serveApplies(parentPort!);
