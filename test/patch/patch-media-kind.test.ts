// A PATCH's Content-Type as kube-apiserver reads it: go-restful's route match for built-in types, then the patch handler's exact comparison.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isStatusError } from '../../src/api/index.ts';
import { patchMediaKindOf, type PatchMediaKind } from '../../src/endpoints/patch-body.ts';

const goRestful415 = { code: 415, reason: 'UnsupportedMediaType', message: '415: Unsupported Media Type' };
const goRestful406 = { code: 406, reason: 'NotAcceptable', message: '406: Not Acceptable\n\nAvailable representations: ' };
const builtin415 = {
  code: 415, reason: 'UnsupportedMediaType',
  message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
};
const custom415 = {
  code: 415, reason: 'UnsupportedMediaType',
  message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
};

type Refusal = { code: number; reason: string; message: string };
interface Case {
  name: string;
  contentType?: string;
  contentLength?: string;
  customResource?: boolean;
  cbor?: boolean;
  expected: PatchMediaKind | Refusal;
}

const cases: Case[] = [
  { name: 'each patch type by its media type', contentType: 'application/json-patch+json', expected: 'json' },
  { name: 'merge patch', contentType: 'application/merge-patch+json', expected: 'merge' },
  { name: 'strategic merge patch for a built-in type', contentType: 'application/strategic-merge-patch+json', expected: 'strategic' },
  { name: 'apply in YAML', contentType: 'application/apply-patch+yaml', expected: 'apply-yaml' },
  { name: 'apply in CBOR with its gate', contentType: 'application/apply-patch+cbor', cbor: true, expected: 'apply-cbor' },
  { name: 'parameters after ; are ignored', contentType: 'application/json-patch+json; charset=utf-8', expected: 'json' },
  { name: 'an empty parameter list is ignored', contentType: 'application/merge-patch+json;', expected: 'merge' },
  { name: 'a built-in type: another type with a body is go-restful\'s bare 415', contentType: 'application/json', expected: goRestful415 },
  { name: 'a built-in type: the media type compares case-sensitively', contentType: 'Application/JSON-Patch+JSON', expected: goRestful415 },
  { name: 'a built-in type: no Content-Type reads as application/octet-stream', contentType: '', expected: goRestful415 },
  { name: 'a built-in type: apply in CBOR without its gate is no route', contentType: 'application/apply-patch+cbor', expected: goRestful415 },
  { name: 'a built-in type: another type without a body is go-restful\'s 406', contentType: 'application/json', contentLength: '0', expected: goRestful406 },
  { name: 'a built-in type: another type sent chunked (no Content-Length) is go-restful\'s 406', contentType: 'text/plain', contentLength: undefined, expected: goRestful406 },
  { name: 'a space before ; passes go-restful (it trims) but not the handler (it does not)', contentType: 'application/json-patch+json ; charset=utf-8', expected: builtin415 },
  { name: 'a list passes go-restful (any entry) but not the handler (the whole text)', contentType: 'text/plain, application/json-patch+json', expected: builtin415 },
  { name: 'a custom resource: no strategic merge patch', contentType: 'application/strategic-merge-patch+json', customResource: true, expected: custom415 },
  { name: 'a custom resource: another type is the handler\'s 415, with or without a body', contentType: 'application/json', contentLength: '0', customResource: true, expected: custom415 },
  { name: 'a custom resource: the media type compares case-sensitively', contentType: 'Application/Merge-Patch+JSON', customResource: true, expected: custom415 },
  { name: 'a custom resource: apply in CBOR with its gate', contentType: 'application/apply-patch+cbor', customResource: true, cbor: true, expected: 'apply-cbor' },
];

describe('patchMediaKindOf', () => {
  for (const c of cases) {
    test(c.name, () => {
      const route = { contentType: c.contentType, contentLength: 'contentLength' in c ? c.contentLength : '2', customResource: c.customResource ?? false, cbor: c.cbor ?? false };
      if (typeof c.expected === 'string') {
        assert.equal(patchMediaKindOf(route), c.expected);
        return;
      }
      const expected = c.expected;
      assert.throws(() => patchMediaKindOf(route), (err: unknown) => {
        assert.ok(isStatusError(err));
        assert.deepEqual({ code: err.code, reason: err.reason, message: err.message }, expected);
        return true;
      });
    });
  }
});
