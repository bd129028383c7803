// HTTP/1.1 requests Node's parser refuses before a handler sees them, answered as kube-apiserver
// answers what Go's parser takes: a method Node does not know (Go's takes any token) is a 405
// Status, as an unknown method is there; the rest as Node answers them.
import type { Duplex } from 'node:stream';
import { methodNotAllowed } from '../api/errors.ts';

/** Node's own answers to the parse errors it has one for (its default 'clientError' handling). */
const nodeAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** The server's 'clientError' listener. A listener replaces Node's default, which this keeps for every other error. */
export function answerParseError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing of an answer already on its way may be corrupted (as Node checks, by its own field).
  if (socket.writable && (socket as { _httpMessage?: { _headerSent?: boolean } })._httpMessage?._headerSent !== true) {
    if (err.code === 'HPE_INVALID_METHOD') {
      const body = JSON.stringify(methodNotAllowed().toStatus());
      socket.write('HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n'
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    } else {
      socket.write(`HTTP/1.1 ${nodeAnswers[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
    }
  }
  socket.destroy();
}
