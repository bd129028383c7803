// kube-apiserver's stream translator (1.30+, TranslateStreamCloseWebsocketRequests): an exec
// or attach asked for over WebSocket with the remote command protocol v5 is not passed to the
// kubelet, whose streaming server knows WebSocket only up to v4. The server answers the
// WebSocket itself, runs the command on the kubelet over SPDY (protocol v5 or v4, as
// client-go's executor), carries stdin, stdout, stderr and terminal resizes between the two,
// and ends with the command's Status on the WebSocket's error channel.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { goQuote } from '../api/field-errors.ts';
import { goJsonSyntaxError } from '../api/go-json-syntax.ts';
import type { KubeletClient } from './kubelet-client.ts';
import { SpdySession, type SpdyStream } from './spdy.ts';
import { protocolV5 } from './upgrade.ts';
import { acceptWebSocket, highWaterBytes, holdBackWhileFull, sendHoldingBack } from './websockets.ts';

/** What the kubelet is asked to speak over SPDY, in client-go's order of preference (v5 adds nothing over SPDY). */
const spdyProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

/** The v5 channels: the first byte of every message. */
const channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** What the caller asked to carry (PodExecOptions, PodAttachOptions). */
export interface TranslatedStreams {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** The Status a command ended with, as upstream's translator writes it (metav1.Status, its JSON field order). */
type FinalStatus = Record<string, unknown>;

const success: FinalStatus = { metadata: {}, status: 'Success' };

/** apierrors.NewInternalError's Status. */
function internalErrorStatus(message: string): FinalStatus {
  return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 };
}

/**
 * What the kubelet's error stream said (client-go's errorDecoderV4), as upstream's translator
 * passes it on: nothing or Success is Success; a non-zero exit the NonZeroExitCode Status with
 * its ExitCode cause (codeExitToStatusError); anything else an internal error.
 */
export function commandStatus(message: string): FinalStatus {
  if (message === '') return success;
  let status: { status?: unknown; reason?: unknown; message?: unknown; details?: { causes?: Array<{ reason?: unknown; message?: unknown }> } };
  try {
    status = JSON.parse(message) as typeof status;
  } catch (err) {
    // client-go's words: Go's syntax error and the message as %q quotes it.
    return internalErrorStatus(`error stream protocol error: ${goJsonSyntaxError(Buffer.from(message, 'utf8')) ?? (err as Error).message} in ${goQuote(message)}`);
  }
  if (status?.status === 'Success') return success;
  if (status?.status !== 'Failure') return internalErrorStatus('error stream protocol error: unknown error');
  if (status.reason === 'NonZeroExitCode') {
    if (status.details === undefined || status.details === null) return internalErrorStatus('error stream protocol error: details must be set');
    const cause = (status.details.causes ?? []).find((c) => c.reason === 'ExitCode');
    if (cause === undefined) return internalErrorStatus('error stream protocol error: no ExitCode cause given');
    const code = String(cause.message ?? '');
    if (!/^\d+$/.test(code) || Number(code) > 255) return internalErrorStatus(`error stream protocol error: invalid exit code value ${JSON.stringify(code)}`);
    const rc = Number(code);
    return {
      metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: command terminated with exit code ${rc}`,
      reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(rc) }] },
    };
  }
  return internalErrorStatus(typeof status.message === 'string' ? status.message : '');
}

/** The code upstream counts a translated stream by: a command that ran (whatever its exit code) 200, else its Status's code. */
function countedCode(status: FinalStatus): number {
  if (status.status === 'Success' || status.reason === 'NonZeroExitCode') return 200;
  return typeof status.code === 'number' ? status.code : 0;
}

/** The client's messages, held until a receiver is given, then passed to it as they come. */
class Inbox {
  readonly #ws: WebSocket;
  #held: Buffer[] | undefined = [];
  #heldBytes = 0;
  #receiver: ((data: Buffer) => void) | undefined;

  constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data: Buffer) => {
      if (this.#receiver !== undefined) return this.#receiver(data);
      this.#held?.push(data);
      this.#heldBytes += data.length;
      // Past this much, the client waits (its connection is not read) until the kubelet is there.
      if (this.#heldBytes > highWaterBytes) ws.pause();
    });
  }

  deliver(receiver: (data: Buffer) => void): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    this.#receiver = receiver;
    for (const data of held) receiver(data);
    this.#ws.resume();
  }
}

/** A WebSocket message on `id`: the channel's byte, then the data. */
function frame(id: number, data: Uint8Array = new Uint8Array(0)): Buffer {
  return Buffer.concat([Buffer.from([id]), data]);
}

/**
 * Serves the WebSocket of an exec or attach by running it on the kubelet over SPDY (`target`:
 * the kubelet's path and query). Resolves when both are done; `onSwitched` is told once the
 * WebSocket is open (the request is answered then), `track` registers how to end it early.
 */
export async function translateStreams(
  connection: { req: IncomingMessage; socket: Duplex; head: Buffer },
  kubelet: KubeletClient, address: string, target: string, streams: TranslatedStreams,
  hooks: { onSwitched(): void; track(stop: () => void): () => void },
): Promise<boolean> {
  const ws = await acceptWebSocket(connection, protocolV5);
  if (ws === undefined) {
    kubelet.counters?.translatedStream(400);
    return false;
  }
  hooks.onSwitched();
  // What the client sends from the start (its input may come before the kubelet answers) waits for the streams.
  const received = new Inbox(ws);
  let session: SpdySession | undefined;
  const untrack = hooks.track(() => {
    ws.terminate();
    session?.close();
  });
  try {
    // Upstream tells the client the streams are ready with an empty message on the lowest channel it writes.
    ws.send(frame(streams.stdout ? channel.stdout : streams.stderr ? channel.stderr : channel.error));
    const status = await runOnKubelet(ws, received, kubelet, address, target, streams, (s) => { session = s; });
    kubelet.counters?.translatedStream(countedCode(status));
    if (ws.readyState === ws.OPEN) {
      ws.send(frame(channel.error, Buffer.from(JSON.stringify(status))));
      ws.close(1000);
    }
  } finally {
    session?.close();
    untrack();
  }
  return true;
}

/** The command on the kubelet, its streams joined to the WebSocket's; the Status it ended with. */
async function runOnKubelet(ws: WebSocket, received: Inbox, kubelet: KubeletClient, address: string, target: string, streams: TranslatedStreams, opened: (session: SpdySession) => void): Promise<FinalStatus> {
  let upgrade;
  try {
    upgrade = await kubelet.upgrade({ address, method: 'POST', target, headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': spdyProtocols } });
  } catch (err) {
    // client-go's SPDY negotiation, around Go's url.Error.
    return internalErrorStatus(`error sending request: Post "https://${address}${target}": ${(err as Error).message}`);
  }
  if (!upgrade.switched) return refusalStatus(upgrade.answer);
  const protocol = String(upgrade.answer.headers['x-stream-protocol-version'] ?? '');
  if (!spdyProtocols.includes(protocol)) {
    upgrade.socket.destroy();
    return internalErrorStatus(`unsupported streaming protocol: "${protocol}"`);
  }
  const session = new SpdySession(upgrade.socket, 'client');
  opened(session);
  // The client leaving ends the kubelet's side, whatever stage the streams are at.
  ws.once('close', () => session.close());
  if (upgrade.head.length > 0) upgrade.socket.unshift(upgrade.head);
  const wsClosed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  // Output the client has not taken yet holds the kubelet back.
  const send = sendHoldingBack(ws, upgrade.socket);
  /** Each output stream's data to its channel, from the moment it is open; resolves at its end. */
  const forward = (stream: SpdyStream, id: number) => new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      if (ws.readyState === ws.OPEN) send(frame(id, chunk));
    });
    if (stream.remoteEnded) resolve();
    else stream.once('end', resolve);
  });
  const open = (type: string) => session.openStream({ streamtype: type });
  let errorText: Promise<string>;
  const outputs: Array<Promise<void>> = [];
  let stdin: SpdyStream | undefined, resize: SpdyStream | undefined;
  try {
    // client-go's order: error, stdin, stdout, stderr (not with a terminal), resize (only with one).
    const errorStream = await open('error');
    errorText = new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      errorStream.on('data', (chunk: Buffer) => chunks.push(chunk));
      if (errorStream.remoteEnded) resolve('');
      else errorStream.once('end', () => resolve(Buffer.concat(chunks).toString()));
    });
    if (streams.stdin) stdin = await open('stdin');
    if (streams.stdout) outputs.push(forward(await open('stdout'), channel.stdout));
    if (streams.stderr && !streams.tty) outputs.push(forward(await open('stderr'), channel.stderr));
    if (streams.tty) resize = await open('resize');
  } catch (err) {
    return internalErrorStatus((err as Error).message);
  }
  // Input the kubelet's connection cannot take yet holds the client back, as Go's copy blocks.
  const holdBack = holdBackWhileFull(ws, upgrade.socket);
  received.deliver((data) => {
    holdBack();
    if (data.length === 0) return;
    if (data[0] === channel.close) {
      if (data.length === 2 && data[1] === channel.stdin) stdin?.end();
      return;
    }
    if (data[0] === channel.stdin) stdin?.write(data.subarray(1));
    else if (data[0] === channel.resize) resize?.write(data.subarray(1));
  });
  const done = Promise.all([errorText, ...outputs]);
  const ended = await Promise.race([done.then(([text]) => text), wsClosed.then(() => undefined)]);
  return ended === undefined ? success : commandStatus(ended);
}

/** A kubelet that did not switch (client-go's spdy round tripper): its Status as it is, else `unable to upgrade connection: <body>`. */
async function refusalStatus(answer: IncomingMessage): Promise<FinalStatus> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 50_000) break;
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks).toString();
  try {
    const decoded = JSON.parse(body) as { kind?: unknown };
    if (decoded !== null && typeof decoded === 'object' && decoded.kind === 'Status') return decoded as FinalStatus;
  } catch {
    // Not a Status: the body's text is the message.
  }
  return internalErrorStatus(`unable to upgrade connection: ${body.trim()}`);
}
