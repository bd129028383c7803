// readBody: a request body read by its stream's events, its limit, and clients that go away mid-body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { isStatusError } from '../../src/api/index.ts';
import { readBody, type HttpRequest } from '../../src/endpoints/http.ts';

function request(headers: Record<string, string> = {}): PassThrough & HttpRequest {
  return Object.assign(new PassThrough(), { headers }) as PassThrough & HttpRequest;
}

test('the body is every chunk joined, in order', async () => {
  const req = request();
  const read = readBody(req);
  req.write('{"a":');
  req.write(Buffer.from('1}'));
  req.end();
  assert.equal((await read).toString(), '{"a":1}');
});

test('a body read after it ended is empty, as a stream with nothing left gives', async () => {
  const req = request();
  req.end();
  req.resume();
  await new Promise((resolve) => req.once('end', resolve));
  assert.equal((await readBody(req)).length, 0);
});

test('past the limit: 413, and the request stays open (paused) for the answer', async () => {
  const req = request();
  const read = readBody(req, 10);
  req.write('0123456789');
  req.write('x');
  await assert.rejects(read, (err) => isStatusError(err) && err.code === 413);
  assert.equal(req.destroyed, false);
  assert.equal(req.isPaused(), true);
  assert.equal(req.listenerCount('data'), 0, 'no listener is left behind');
});

test('a declared length past the limit is refused before anything is read', async () => {
  const req = request({ 'content-length': '11' });
  await assert.rejects(readBody(req, 10), (err) => isStatusError(err) && err.code === 413);
});

test('a client that goes away mid-body ends the read with a disconnect, not a wait forever', async () => {
  const req = request();
  const read = readBody(req);
  req.write('{"a":');
  req.destroy();
  await assert.rejects(read, (err: NodeJS.ErrnoException) => err.code === 'ERR_STREAM_PREMATURE_CLOSE');
});

test('a request already gone before its body is read: the same disconnect', async () => {
  const req = request();
  req.destroy();
  await assert.rejects(readBody(req), (err: NodeJS.ErrnoException) => err.code === 'ERR_STREAM_PREMATURE_CLOSE');
});

test('a stream failing mid-body passes its error on', async () => {
  const req = request();
  const read = readBody(req);
  req.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
  await assert.rejects(read, (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET');
});

test('a body that is only an async iterable (no stream events) is read too', async () => {
  const req = Object.assign(Readable.from([Buffer.from('ab'), 'cd']), { headers: {} });
  const iterableOnly: HttpRequest = { headers: {}, once: () => undefined, [Symbol.asyncIterator]: () => req[Symbol.asyncIterator]() };
  assert.equal((await readBody(iterableOnly)).toString(), 'abcd');
});

test('a request paused before its body is read is still read to its end', { timeout: 5000 }, async () => {
  const req = request();
  req.pause();
  req.write('{"a":1}');
  req.end();
  assert.equal((await readBody(req)).toString(), '{"a":1}');
});
