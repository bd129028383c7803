// A KMS v2 plugin for tests: upstream's gRPC service (v2.KeyManagementService) on a unix
// socket, its messages read and written by protobufjs from upstream's field definitions (so
// Plinth's own encoding is checked against another), sealing with AES-256-GCM under a key
// per key id. Tests change its key id and health, count its calls, stop and restart it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { tempDir } from './server.ts';

/** Upstream's k8s.io/kms/apis/v2 messages and the stored EncryptedObject, by their field numbers. */
const proto = protobuf.parse(`
syntax = "proto3";
package v2;
message StatusRequest {}
message StatusResponse { string version = 1; string healthz = 2; string key_id = 3; }
message DecryptRequest { bytes ciphertext = 1; string uid = 2; string key_id = 3; map<string, bytes> annotations = 4; }
message DecryptResponse { bytes plaintext = 1; }
message EncryptRequest { bytes plaintext = 1; string uid = 2; }
message EncryptResponse { bytes ciphertext = 1; string key_id = 2; map<string, bytes> annotations = 3; }
enum EncryptedDEKSourceType { AES_GCM_KEY = 0; HKDF_SHA256_XNONCE_AES_GCM_SEED = 1; }
message EncryptedObject { bytes encryptedData = 1; string keyID = 2; bytes encryptedDEKSource = 3; map<string, bytes> annotations = 4; EncryptedDEKSourceType encryptedDEKSourceType = 5; }
`, { keepCase: true }).root;

export const EncryptedObject = proto.lookupType('v2.EncryptedObject');

export interface DecodedEncryptedObject {
  encryptedData: Uint8Array;
  keyID: string;
  encryptedDEKSource: Uint8Array;
  annotations: Record<string, Uint8Array>;
  encryptedDEKSourceType: number;
}

export function decodeEncryptedObject(bytes: Uint8Array): DecodedEncryptedObject {
  return EncryptedObject.toObject(EncryptedObject.decode(bytes), { defaults: true }) as DecodedEncryptedObject;
}

function method(name: string, request: string, response: string): grpc.MethodDefinition<object, object> {
  const req = proto.lookupType(`v2.${request}`);
  const res = proto.lookupType(`v2.${response}`);
  return {
    path: `/v2.KeyManagementService/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: object) => Buffer.from(req.encode(req.fromObject(value)).finish()),
    requestDeserialize: (bytes: Buffer) => req.toObject(req.decode(bytes), { defaults: true }),
    responseSerialize: (value: object) => Buffer.from(res.encode(res.fromObject(value)).finish()),
    responseDeserialize: (bytes: Buffer) => res.toObject(res.decode(bytes), { defaults: true }),
  };
}

const definition = {
  Status: method('Status', 'StatusRequest', 'StatusResponse'),
  Decrypt: method('Decrypt', 'DecryptRequest', 'DecryptResponse'),
  Encrypt: method('Encrypt', 'EncryptRequest', 'EncryptResponse'),
};

export const pluginAnnotation = 'version.encryption.remote.io';

export class KmsPlugin {
  readonly socket: string;
  readonly endpoint: string;
  keyId = 'key-1';
  healthz = 'ok';
  version = 'v2';
  /** Decrypt calls answer this error while set. */
  failDecrypt: string | undefined;
  readonly calls = { status: 0, encrypt: 0, decrypt: 0 };
  /** The uids the server sent with its Encrypt and Decrypt calls. */
  readonly uids: string[] = [];
  readonly #keks = new Map<string, Buffer>();
  #server: grpc.Server | undefined;

  /** On `dir`'s kms.sock, or on the Linux abstract socket `abstract` names (endpoint `unix:///@<name>`). */
  constructor(dir = tempDir('plinth-kms-'), opts: { abstract?: string } = {}) {
    this.socket = opts.abstract === undefined ? path.join(dir, 'kms.sock') : `\0${opts.abstract}`;
    this.endpoint = opts.abstract === undefined ? `unix://${this.socket}` : `unix:///@${opts.abstract}`;
  }

  #kek(keyId: string): Buffer {
    let kek = this.#keks.get(keyId);
    if (kek === undefined) {
      kek = randomBytes(32);
      this.#keks.set(keyId, kek);
    }
    return kek;
  }

  seal(plaintext: Uint8Array): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#kek(this.keyId), nonce);
    return Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  /** What the plugin's Decrypt answers, for a test's own reading of stored bytes. */
  open(ciphertext: Uint8Array, keyId: string): Buffer {
    const kek = this.#keks.get(keyId);
    if (kek === undefined) throw new Error(`unknown key id ${keyId}`);
    const data = Buffer.from(ciphertext);
    const decipher = createDecipheriv('aes-256-gcm', kek, data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
  }

  async start(): Promise<void> {
    const server = new grpc.Server();
    type Call = grpc.ServerUnaryCall<Record<string, unknown>, object>;
    const unary = (work: (request: Record<string, unknown>) => object) => (call: Call, callback: grpc.sendUnaryData<object>) => {
      try {
        callback(null, work(call.request));
      } catch (err) {
        callback({ code: grpc.status.INTERNAL, details: (err as Error).message } as grpc.ServiceError);
      }
    };
    server.addService(definition, {
      Status: unary(() => {
        this.calls.status++;
        return { version: this.version, healthz: this.healthz, key_id: this.keyId };
      }),
      Encrypt: unary((request) => {
        this.calls.encrypt++;
        this.uids.push(String(request.uid));
        return { ciphertext: this.seal(request.plaintext as Uint8Array), key_id: this.keyId, annotations: { [pluginAnnotation]: Buffer.from('1') } };
      }),
      Decrypt: unary((request) => {
        this.calls.decrypt++;
        this.uids.push(String(request.uid));
        if (this.failDecrypt !== undefined) throw new Error(this.failDecrypt);
        const annotations = request.annotations as Record<string, Uint8Array>;
        if (Buffer.from(annotations[pluginAnnotation] ?? []).toString() !== '1') throw new Error('annotations were not sent back');
        return { plaintext: this.open(request.ciphertext as Uint8Array, String(request.key_id)) };
      }),
    });
    const target = this.socket.startsWith('\0') ? `unix:${this.socket}` : `unix://${this.socket}`;
    await new Promise<void>((resolve, reject) => server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err) => (err === null ? resolve() : reject(err))));
    this.#server = server;
  }

  stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return Promise.resolve();
    server.forceShutdown();
    return Promise.resolve();
  }
}
