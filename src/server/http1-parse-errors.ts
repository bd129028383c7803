// HTTP/1.1 requests Node's parser refuses before a handler sees them, answered as kube-apiserver
// answers what Go's parser takes: a method Node does not know (Go's takes any token) is a 405
// Status, as an unknown method is there; the rest as Node answers them.
import type { Duplex } from 'node:stream';
import { methodNotAllowed } from '../api/errors.ts';

/** The answer Node's server is writing on the socket (its `_httpMessage`). */
interface InFlightResponse {
  writableFinished: boolean;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/** Node's own answers to the parse errors it has one for (its default 'clientError' handling). */
const nodeAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** The server's 'clientError' listener. A listener replaces Node's default, which this keeps for every other error. */
export function answerParseError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: InFlightResponse | null })._httpMessage;
  // A request read before the refused one is still being served (a DELETE whose body came
  // without Content-Length is read as such a pair): Go's server answers it before reading
  // on, so its answer goes first, then the refusal's (written now, it went in its place and
  // the request's own answer was lost with the socket, though the request took effect).
  if (inFlight !== undefined && inFlight !== null && !inFlight.writableFinished) {
    inFlight.once('finish', () => setImmediate(() => answerParseError(err, socket)));
    inFlight.once('close', () => {
      if (!inFlight.writableFinished) socket.destroy();
    });
    return;
  }
  // Nothing of an answer already on its way may be corrupted (as Node checks, by its own field).
  if (socket.writable && (socket as { _httpMessage?: { _headerSent?: boolean } | null })._httpMessage?._headerSent !== true) {
    if (err.code === 'HPE_INVALID_METHOD' && goTakesRequestLine(refusedLine(err))) {
      const body = JSON.stringify(methodNotAllowed().toStatus());
      socket.write('HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n'
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    } else {
      socket.write(`HTTP/1.1 ${nodeAnswers[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
    }
  }
  socket.destroy();
}

/**
 * The request line Node's parser refused (the error's packet, from the line the parser
 * stopped in), when it can tell.
 */
function refusedLine(err: NodeJS.ErrnoException): string | undefined {
  const { rawPacket: packet, bytesParsed: at } = err as { rawPacket?: Buffer; bytesParsed?: number };
  if (packet === undefined || at === undefined) return undefined;
  const start = at <= 0 ? 0 : packet.lastIndexOf(0x0a, Math.min(at, packet.length) - 1) + 1;
  const end = packet.indexOf(0x0a, start);
  return packet.toString('latin1', start, end < 0 ? packet.length : end).replace(/\r$/, '');
}

/**
 * Whether Go's server reads the line as a request (a method of token characters, a target,
 * a version), which kube-apiserver then answers 405 for an unknown method; anything else
 * (the body of a request sent without its length, read as the next request) is Go's 400.
 */
function goTakesRequestLine(line: string | undefined): boolean {
  return line !== undefined && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ [^ ]+ HTTP\/\d\.\d$/.test(line);
}
