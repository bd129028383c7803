// A request to another server (a kubelet, a pod) as Go's HTTP transport makes one: its dial
// and TLS handshake bounded by Go's defaults (30 s to connect, 10 s for the handshake), and
// then its answer, or for an upgrade the switch and its connection.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { sendBody } from './proxy-stream.ts';
import type { BackendUpgrade } from './upgrade.ts';

const connectTimeoutMs = 30_000;
const handshakeTimeoutMs = 10_000;

/** Ends `outgoing` with Go's errors when its connection or (over TLS) its handshake takes longer than Go's transport allows. */
export function boundDial(outgoing: ClientRequest, tls: boolean): void {
  outgoing.once('socket', (socket) => {
    if (!socket.connecting) return;
    const fail = (code: string, message: string) => outgoing.destroy(Object.assign(new Error(message), { code }));
    let timer = setTimeout(() => fail('ETIMEDOUT', 'connect timeout'), connectTimeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      if (tls) timer = setTimeout(() => fail('TLS_HANDSHAKE_TIMEOUT', 'net/http: TLS handshake timeout'), handshakeTimeoutMs);
    });
    socket.once('secureConnect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}

/** `outgoing` sent with `body`: the answer (its body unread), or what `failed` makes of the error. */
export function answerOf(outgoing: ClientRequest, failed: (err: NodeJS.ErrnoException) => Error, body?: AsyncIterable<Buffer | string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    outgoing.once('error', (err: NodeJS.ErrnoException) => reject(failed(err)));
    outgoing.once('response', resolve);
    if (body === undefined) outgoing.end();
    else sendBody(body, outgoing);
  });
}

/**
 * `outgoing`, a request to switch protocols (its headers say which), sent: the backend's 101
 * and the connection, now the caller's to use, or its answer when it did not switch (the body
 * unread); what `failed` makes of an error. `sent` sees the request on its way.
 */
export function switchOf(outgoing: ClientRequest, failed: (err: NodeJS.ErrnoException) => Error, sent?: (outgoing: ClientRequest) => void): Promise<BackendUpgrade> {
  return new Promise((resolve, reject) => {
    outgoing.once('error', (err: NodeJS.ErrnoException) => reject(failed(err)));
    sent?.(outgoing);
    outgoing.once('response', (answer: IncomingMessage) => resolve({ switched: false, answer }));
    outgoing.once('upgrade', (answer: IncomingMessage, socket: Duplex, head: Buffer) => resolve({ switched: true, answer, socket, head }));
    outgoing.end();
  });
}
