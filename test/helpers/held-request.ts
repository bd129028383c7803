// A request held in flight: a create whose body is sent only when `finish` is called.
import https from 'node:https';
import type { TestServer } from './server.ts';

/**
 * `arrived` resolves once the server has taken the request in (it answered the request's
 * `Expect: 100-continue`, which Node does as it hands the request to the server's handler),
 * the first bytes of the body then sent.
 */
export function heldCreate(server: TestServer, opts: { token?: string; name?: string } = {}): { answered: Promise<number>; arrived: Promise<void>; finish(): void } {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: opts.name ?? 'held' } });
  let finish = () => {};
  let arrive = () => {};
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const answered = new Promise<number>((resolve, reject) => {
    const req = https.request(new URL('/api/v1/namespaces/default/configmaps', server.url), {
      method: 'POST', ca: server.caPem, agent: false,
      headers: { authorization: `Bearer ${opts.token ?? server.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.once('continue', () => {
      req.write(body.slice(0, 10));
      arrive();
    });
    finish = () => void arrived.then(() => req.end(body.slice(10)));
  });
  return { answered, arrived, finish: () => finish() };
}
