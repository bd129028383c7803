// The KMS v2 plugin's gRPC API (k8s.io/kms/apis/v2, service v2.KeyManagementService) over
// its unix socket, as kube-apiserver calls it: every call waits for the connection until
// the provider's timeout. gRPC is loaded only when a KMS provider is configured.
import type { KmsDecryptRequest, KmsEncryptResponse, KmsService, KmsStatus } from './kms-v2.ts';
import { encodeMessage, WireMessage } from './kms-wire.ts';

const service = '/v2.KeyManagementService';

/** gRPC's status codes by number, named as Go's codes.Code prints them. */
const codeNames = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
];
const DEADLINE_EXCEEDED = 4;

/**
 * A failed call worded as grpc-go's status error (`rpc error: code = Unavailable desc = …`); a
 * deadline is the context's. `grpcCode` names the code, for the metrics that count by it.
 */
function callError(err: { code?: number; details?: string; message: string }): Error {
  if (err.code === undefined) return new Error(err.message);
  const desc = err.code === DEADLINE_EXCEEDED ? 'context deadline exceeded' : (err.details ?? err.message);
  const code = codeNames[err.code] ?? `Code(${err.code})`;
  return Object.assign(new Error(`rpc error: code = ${code} desc = ${desc}`), { grpcCode: code });
}

/**
 * The socket path of a `unix://` endpoint (upstream's ParseEndpoint): `unix:///var/run/kms.sock`
 * → `/var/run/kms.sock`; `unix:///@kms` names the Linux abstract socket `kms`, as Go dials an
 * address that starts with `@` (Node's: a path that starts with a NUL). Configuration
 * validation has already refused other schemes.
 */
export function socketPath(endpoint: string): string {
  const path = decodeURIComponent(new URL(endpoint).pathname);
  return path.startsWith('/@') ? `\0${path.slice(2)}` : path;
}

/** grpc-js's target for the socket (its `unix:` resolver passes the path to Node as it is). */
function grpcTarget(endpoint: string): string {
  const path = socketPath(endpoint);
  return path.startsWith('\0') ? `unix:${path}` : `unix://${path}`;
}

/** How a call went, for upstream's latency metric: its full method name, its gRPC code (`OK`, `Unavailable`, …) and seconds. */
export type KmsCallObserver = (method: string, code: string, seconds: number) => void;

/** A client of the plugin at `endpoint`, each call bounded by `timeoutMs`. */
export async function grpcKmsService(endpoint: string, timeoutMs: number, observe?: KmsCallObserver): Promise<KmsService> {
  const grpc = await import('@grpc/grpc-js');
  const client = new grpc.Client(grpcTarget(endpoint), grpc.credentials.createInsecure(), { 'grpc.default_authority': 'localhost' });
  const call = <T>(method: string, request: Uint8Array, read: (m: WireMessage) => T): Promise<T> => new Promise((resolve, reject) => {
    const metadata = new grpc.Metadata();
    // Wait for the plugin's socket until the deadline, rather than failing at once (grpc-go's WaitForReady).
    metadata.setOptions({ waitForReady: true });
    const path = `${service}/${method}`;
    const started = performance.now();
    client.makeUnaryRequest(
      path, (bytes: Uint8Array) => Buffer.from(bytes), (bytes: Buffer) => bytes, request, metadata,
      { deadline: Date.now() + timeoutMs },
      (err, response) => {
        const code = err === null ? 'OK' : err.code === undefined ? 'unknown-non-grpc' : (codeNames[err.code] ?? `Code(${err.code})`);
        observe?.(path, code, (performance.now() - started) / 1000);
        if (err !== null || response === undefined) {
          reject(callError(err ?? new Error('no response')));
          return;
        }
        try {
          resolve(read(new WireMessage(response)));
        } catch (decodeErr) {
          reject(decodeErr);
        }
      },
    );
  });
  return {
    status: () => call<KmsStatus>('Status', new Uint8Array(0), (m) => ({ version: m.string(1), healthz: m.string(2), keyId: m.string(3) })),
    encrypt: (uid, plaintext) => call<KmsEncryptResponse>('Encrypt', encodeMessage([[1, plaintext], [2, uid]]), (m) => ({
      ciphertext: m.bytes(1), keyId: m.string(2), annotations: m.map(3),
    })),
    decrypt: (uid, request: KmsDecryptRequest) => call<Uint8Array>(
      'Decrypt', encodeMessage([[1, request.ciphertext], [2, uid], [3, request.keyId], [4, request.annotations]]), (m) => m.bytes(1),
    ),
    close: () => client.close(),
  };
}
