// SPDY/3.1 as Kubernetes' streams use it, both sides over a loopback connection: streams
// opened with headers and answered, data both ways and half-closes, the header compression
// shared across frames, PING answered, and bad input ending the connection rather than the process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { SpdySession, type SpdyStream } from '../../src/endpoints/spdy.ts';
import { eventually } from '../helpers/eventually.ts';

/** A connected pair of sockets on loopback. */
async function socketPair(): Promise<[Socket, Socket]> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  const other = await accepted;
  server.close();
  return [client, other];
}

test('streams open with their headers, carry data both ways and half-close', async () => {
  const [a, b] = await socketPair();
  const opened: SpdyStream[] = [];
  const server = new SpdySession(b, 'server', (stream) => {
    opened.push(stream);
    stream.on('data', (chunk: Buffer) => stream.write(chunk.toString().toUpperCase()));
    stream.once('end', () => stream.end('!'));
  });
  const client = new SpdySession(a, 'client');
  // Several streams, each header block compressed against the ones before it.
  const streams = await Promise.all(['error', 'stdin', 'stdout'].map((type) => client.openStream({ streamType: type, port: '8080' })));
  assert.deepEqual(opened.map((s) => s.headers), ['error', 'stdin', 'stdout'].map((type) => ({ streamtype: type, port: '8080' })));
  assert.deepEqual(streams.map((s) => s.id), [1, 3, 5]);
  const stdin = streams[1]!;
  let echoed = '';
  stdin.on('data', (chunk: Buffer) => { echoed += chunk.toString(); });
  const ended = new Promise((resolve) => stdin.once('end', resolve));
  stdin.write('hello ');
  stdin.write('world');
  stdin.end();
  await ended;
  assert.equal(echoed, 'HELLO WORLD!');
  assert.equal(stdin.remoteEnded, true);
  client.close();
  await eventually(() => assert.equal(b.destroyed, true));
  server.close();
});

test('a client session answers PING; a stream the peer resets is refused; closing refuses those still opening', async () => {
  const [a, b] = await socketPair();
  const client = new SpdySession(a, 'client');
  const stream = client.openStream({ streamtype: 'error' });
  // The peer, by hand: read the SYN_STREAM, then send PING and a reset.
  const received: Buffer[] = [];
  b.on('data', (chunk: Buffer) => received.push(chunk));
  await eventually(() => assert.ok(Buffer.concat(received).length > 18));
  const ping = Buffer.from([0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02]);
  b.write(ping);
  await eventually(() => assert.ok(Buffer.concat(received).includes(ping), 'PING answered with the same frame'));
  // A RST_STREAM of the stream being opened rejects it.
  b.write(Buffer.from([0x80, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05]));
  await assert.rejects(stream, /stream 1 was reset/);
  const second = client.openStream({ streamtype: 'data' });
  client.close();
  await assert.rejects(second, /closed/);
  b.destroy();
});

test('bad input ends the connection: a frame past the limit, a header block that does not inflate', async () => {
  for (const bad of [
    // A data frame claiming 16 MiB.
    Buffer.from([0x00, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff]),
    // A SYN_STREAM whose header block is not zlib.
    Buffer.from([0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef]),
    // A SYN_STREAM too short for its fixed fields.
    Buffer.from([0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]),
  ]) {
    const [a, b] = await socketPair();
    let closed = false;
    const server = new SpdySession(b, 'server', () => assert.fail('no stream should open'));
    server.once('close', () => { closed = true; });
    a.write(bad);
    await eventually(() => assert.equal(closed, true));
    a.destroy();
  }
});

test('a stream the peer never answers fails as client-go\'s does, after the reply timeout', async () => {
  const [a, b] = await socketPair();
  b.resume(); // a peer that reads and never replies
  const client = new SpdySession(a, 'client', undefined, { replyTimeoutMs: 50 });
  await assert.rejects(client.openStream({ streamtype: 'error' }), /^Error: Timeout occurred$/);
  client.close();
  b.destroy();
});
