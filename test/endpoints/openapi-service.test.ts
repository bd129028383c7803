import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HttpRequest, HttpResponse } from '../../src/endpoints/http.ts';
import { OpenApiService } from '../../src/endpoints/openapi-service.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import type { Store } from '../../src/registry/store.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import { builtinTypes } from './openapi-fixtures.ts';

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: Buffer;
}

function service(): OpenApiService {
  const registry = new ResourceRegistry();
  for (const type of builtinTypes) registry.add({ type, store: {} as Store });
  return new OpenApiService(registry, builtinDefinitions);
}

async function get(svc: OpenApiService, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(path, 'https://plinth');
  const answer: Answer = { status: 0, headers: {}, body: Buffer.alloc(0) };
  const req = { method: 'GET', url: path, headers, once: () => undefined, [Symbol.asyncIterator]: async function* () {} } as unknown as HttpRequest;
  const res = {
    statusCode: 200,
    headersSent: false,
    writableEnded: false,
    setHeader: () => undefined,
    getHeader: () => undefined,
    writeHead(status: number, h: Record<string, unknown> = {}) {
      answer.status = status;
      answer.headers = h;
    },
    write: () => true,
    end(chunk?: string | Uint8Array) {
      if (chunk !== undefined) answer.body = Buffer.from(chunk);
    },
    once: () => undefined,
  } as unknown as HttpResponse;
  await svc.serve(req, res, url.pathname.split('/').filter(Boolean).slice(1), url.searchParams);
  return answer;
}

describe('OpenApiService', () => {
  test('GET /openapi/v2 as Protobuf answers the Content-Type clients can parse (no "@")', async () => {
    const svc = service();
    for (const accept of ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']) {
      const answer = await get(svc, '/openapi/v2', { accept });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['Content-Type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      assert.equal(answer.body[0], 0x0a); // Document.swagger, field 1, length-delimited
    }
  });

  test('GET /openapi/v2 answers 304 to its own ETag', async () => {
    const svc = service();
    const first = await get(svc, '/openapi/v2', { accept: 'application/json' });
    assert.equal(JSON.parse(first.body.toString()).swagger, '2.0');
    const again = await get(svc, '/openapi/v2', { accept: 'application/json', 'if-none-match': String(first.headers.ETag) });
    assert.equal(again.status, 304);
  });

  test('extension servers\' v2 documents merge by priority: the first keeps a shared definition name, the next gets it renamed', async () => {
    const svc = service();
    const extension = (group: string, shape: string) => ({
      paths: { [`/apis/${group}/v1/things`]: { get: { responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/Thing' } } } } } },
      definitions: { Thing: { type: 'object', description: shape } },
    });
    let remote = [
      { name: 'v1.low.example', group: 'low.example', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, document: extension('low.example', 'low') },
      { name: 'v1.high.example', group: 'high.example', version: 'v1', groupPriorityMinimum: 2000, versionPriority: 10, document: extension('high.example', 'high') },
    ];
    svc.remoteV2 = () => remote;
    const read = async () => {
      const answer = await get(svc, '/openapi/v2', { accept: 'application/json' });
      return { doc: JSON.parse(answer.body.toString()), etag: String(answer.headers.ETag) };
    };
    const first = await read();
    assert.equal(first.doc.definitions.Thing.description, 'high');
    assert.equal(first.doc.definitions.Thing_v2.description, 'low');
    assert.deepEqual(first.doc.paths['/apis/low.example/v1/things'].get.responses['200'].schema, { $ref: '#/definitions/Thing_v2' });
    assert.ok(first.doc.paths['/api/v1/pods'] !== undefined, 'the served paths stay');
    // The same inputs: the same document; a priority changed: made again, the other first.
    assert.equal((await read()).etag, first.etag);
    remote = [{ ...remote[0]!, groupPriorityMinimum: 5000 }, remote[1]!];
    const second = await read();
    assert.notEqual(second.etag, first.etag);
    assert.equal(second.doc.definitions.Thing.description, 'low');
    assert.equal(second.doc.definitions.Thing_v2.description, 'high');
  });

  test('the v3 index links documents served under their hash', async () => {
    const svc = service();
    const index = JSON.parse((await get(svc, '/openapi/v3')).body.toString());
    const url: string = index.paths['api/v1'].serverRelativeURL;
    const doc = await get(svc, url);
    assert.equal(doc.status, 200);
    assert.equal(JSON.parse(doc.body.toString()).openapi, '3.0.0');
    assert.equal(doc.headers['Cache-Control'], 'public, immutable');
  });
});
