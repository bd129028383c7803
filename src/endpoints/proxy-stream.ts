// Passing an answer from another server (a kubelet) back to the caller as it comes.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { HttpRequest, HttpResponse } from './http.ts';

/** Headers of one connection: not passed on either way. */
export const hopByHopHeaders: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'http2-settings']);

/**
 * Headers not passed on by default: those of the caller's connection, its credentials and
 * impersonation (upstream's filters remove them once used), the host, HTTP/2's pseudo-headers.
 */
export function notForwarded(name: string): boolean {
  return hopByHopHeaders.has(name) || name === 'authorization' || name === 'host' || name.startsWith('impersonate-') || name.startsWith(':');
}

/** The caller's headers to pass on (names in lower case, repeated ones kept), but those `dropped` names. */
export function forwardedHeaders(req: HttpRequest, dropped: (name: string) => boolean = notForwarded): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  const raw = req.rawHeaders ?? [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (dropped(name)) continue;
    const existing = headers[name];
    headers[name] = existing === undefined ? raw[i + 1]! : [...(Array.isArray(existing) ? existing : [existing]), raw[i + 1]!];
  }
  return headers;
}

/** The answer's headers to pass back: all but its connection's. */
export function answeredHeaders(answer: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined && !hopByHopHeaders.has(name)) headers[name] = value;
  }
  return headers;
}

/**
 * Streams the answer's body to the response, holding the answer back while the caller does
 * not read; the caller going away ends the answer. Resolves once the answer has ended, failed
 * or been cut off (what came is what the caller gets).
 */
export function streamAnswer(answer: IncomingMessage, res: HttpResponse): Promise<void> {
  return new Promise((resolve) => {
    let gone = false;
    res.once('close', () => {
      gone = true;
      answer.destroy();
    });
    answer.on('data', (chunk: Buffer) => {
      if (gone) return;
      if (!res.write(chunk)) {
        answer.pause();
        res.once('drain', () => answer.resume());
      }
    });
    const finish = () => {
      if (!gone && !res.writableEnded) res.end();
      resolve();
    };
    answer.once('end', finish);
    answer.once('error', finish);
    answer.once('close', finish);
  });
}

/** Writes the caller's body to the outgoing request as it comes, then ends it (an HTTP/2 request is no Node stream to pipe); a body that fails ends the request. */
export function sendBody(body: AsyncIterable<Buffer | string>, outgoing: ClientRequest): void {
  void (async () => {
    try {
      for await (const chunk of body) outgoing.write(chunk);
      outgoing.end();
    } catch {
      outgoing.destroy();
    }
  })();
}
