// applyPatch, the entry point of the PATCH handler: parsing the body, dispatching on the
// patch type, and the Status each failure becomes (as kube-apiserver answers it).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StatusError } from '../../src/api/errors.ts';
import { maxNestingDepth } from '../../src/api/nesting.ts';
import { applyPatch, type PatchContext, type PatchKind } from '../../src/patch/index.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';

const defs = builtinDefinitions;
const configMapSchema = defs['io.k8s.api.core.v1.ConfigMap']!;
const builtin: PatchContext = { defs, schema: configMapSchema };
const custom: PatchContext = { defs, schema: undefined };

const current = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1', b: '2' } };

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function status(kind: PatchKind, body: string, ctx = builtin) {
  try {
    applyPatch(kind, current, bytes(body), ctx);
  } catch (err) {
    assert.ok(err instanceof StatusError, `a StatusError, not ${String(err)}`);
    return err.toStatus();
  }
  assert.fail('the patch should fail');
}

/** Freezes `value` and everything in it, as the watch cache freezes what it holds. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** Every object and array in `value`, which is frozen when any of them is. */
function frozenParts(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const own = Object.isFrozen(value) ? [path || '/'] : [];
  return [...own, ...Object.entries(value).flatMap(([key, member]) => frozenParts(member, `${path}/${key}`))];
}

describe('applyPatch', () => {
  test('never changes what it patches, and answers an object sharing nothing with it (the Store gives it the watch cache\'s frozen copy)', () => {
    const deployment = deepFreeze({
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default', labels: { app: 'd' }, managedFields: [{ manager: 'm', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }] },
      spec: {
        replicas: 1, selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] } },
      },
    });
    const before = structuredClone(deployment);
    const deploymentSchema: PatchContext = { defs, schema: defs['io.k8s.api.apps.v1.Deployment']! };
    const patches: [PatchKind, unknown][] = [
      ['strategic', { metadata: { labels: { tier: 'web' } }, spec: { template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } } }],
      ['strategic', { spec: { template: { spec: { containers: [{ name: 'c', image: 'c:1' }] } } } }],
      ['merge', { metadata: { labels: { app: null, tier: 'web' } }, spec: { replicas: 3 } }],
      ['json', [
        { op: 'replace', path: '/spec/replicas', value: 2 },
        { op: 'copy', from: '/spec/template/spec/containers/0', path: '/spec/template/spec/containers/-' },
        { op: 'move', from: '/metadata/labels', path: '/metadata/annotations' },
        { op: 'add', path: '/spec/template/spec/containers/0/env/-', value: { name: 'Y', value: '2' } },
      ]],
    ];
    for (const [kind, patch] of patches) {
      const patched = applyPatch(kind, deployment, bytes(JSON.stringify(patch)), deploymentSchema);
      assert.deepEqual(frozenParts(patched), [], `${kind}: the result shares frozen parts with the object patched`);
      assert.deepStrictEqual(deployment, before, `${kind}: the object patched changed`);
    }
  });

  test('applies each patch type', () => {
    assert.deepStrictEqual(applyPatch('json', current, bytes('[{"op":"replace","path":"/data/a","value":"x"}]'), builtin), { ...current, data: { a: 'x', b: '2' } });
    assert.deepStrictEqual(applyPatch('merge', current, bytes('{"data":{"a":null,"c":"3"}}'), builtin), { ...current, data: { b: '2', c: '3' } });
    assert.deepStrictEqual(applyPatch('strategic', current, bytes('{"data":{"a":null,"c":"3"}}'), builtin), { ...current, data: { b: '2', c: '3' } });
  });

  test('custom resources take JSON and merge patches', () => {
    assert.deepStrictEqual(applyPatch('merge', current, bytes('{"data":{"a":"x"}}'), custom), { ...current, data: { a: 'x', b: '2' } });
    assert.deepStrictEqual(applyPatch('json', current, bytes('[{"op":"remove","path":"/data"}]'), custom), { apiVersion: 'v1', kind: 'ConfigMap', metadata: current.metadata });
  });

  test('the current object is not modified, and the result shares nothing with it', () => {
    const before = JSON.stringify(current);
    for (const kind of ['json', 'merge', 'strategic'] as const) {
      const body = kind === 'json' ? '[{"op":"add","path":"/data/z","value":"1"}]' : '{"data":{"z":"1"}}';
      const result = applyPatch(kind, current, bytes(body), builtin) as typeof current;
      result.metadata.name = 'changed';
      assert.equal(JSON.stringify(current), before, kind);
    }
  });

  test('strategic merge patch of a custom resource answers 415 listing the accepted types', () => {
    assert.deepStrictEqual(status('strategic', '{}', custom), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });

  test('a body that is not JSON answers 400', () => {
    for (const kind of ['json', 'merge', 'strategic'] as const) {
      const s = status(kind, '{"data":');
      assert.equal(s.code, 400, kind);
      assert.equal(s.reason, 'BadRequest');
    }
  });

  // handlers/patch.go: Warn (the default) and Strict read JSON and merge patches strictly first;
  // Ignore leaves them to DecodePatch and MergePatch; strategicPatchObject answers Go's error alone.
  const notJsonCases: { kind: PatchKind; fieldValidation?: 'Ignore' | 'Warn' | 'Strict'; message: string }[] = [
    { kind: 'merge', message: "error decoding patch: invalid character 'b' looking for beginning of object key string" },
    { kind: 'merge', fieldValidation: 'Strict', message: "error decoding patch: invalid character 'b' looking for beginning of object key string" },
    { kind: 'merge', fieldValidation: 'Ignore', message: 'Invalid JSON Patch' },
    { kind: 'json', message: "error decoding patch: invalid character 'b' looking for beginning of object key string" },
    { kind: 'json', fieldValidation: 'Ignore', message: "invalid character 'b' looking for beginning of object key string" },
    { kind: 'strategic', message: "invalid character 'b' looking for beginning of object key string" },
    { kind: 'strategic', fieldValidation: 'Ignore', message: "invalid character 'b' looking for beginning of object key string" },
  ];
  for (const { kind, fieldValidation, message } of notJsonCases) {
    test(`a ${kind} patch that is not JSON, field validation ${fieldValidation ?? 'unset'}, answers 400 in Go's words`, () => {
      const s = status(kind, '{bad json', { ...builtin, fieldValidation });
      assert.equal(s.code, 400);
      assert.equal(s.reason, 'BadRequest');
      assert.equal(s.message, message);
    });
  }

  test('a truncated patch answers Go\'s unexpected end of JSON input', () => {
    assert.equal(status('merge', '{"data":').message, 'error decoding patch: unexpected end of JSON input');
  });

  test('a body nested deeper than maxNestingDepth answers 400 with the Go decoder message', () => {
    const deep = `${'['.repeat(maxNestingDepth + 1)}${']'.repeat(maxNestingDepth + 1)}`;
    const s = status('json', deep);
    assert.equal(s.code, 400);
    assert.equal(s.message, "error decoding patch: invalid character '[' exceeded max depth");
    const deepObject = `${'{"a":'.repeat(maxNestingDepth + 1)}1${'}'.repeat(maxNestingDepth + 1)}`;
    assert.equal(status('merge', deepObject).message, "error decoding patch: invalid character '{' exceeded max depth");
  });

  test('a body nested exactly maxNestingDepth levels is decoded', () => {
    const atLimit = `${'{"a":'.repeat(maxNestingDepth)}1${'}'.repeat(maxNestingDepth)}`;
    const patched = applyPatch('merge', { metadata: {} }, Buffer.from(atLimit), { defs: {}, schema: undefined }) as Record<string, unknown>;
    assert.equal(typeof patched.a, 'object');
  });

  test('a JSON patch that is not an array answers 400 with the decoder message: the strict one under Warn and Strict, DecodePatch\'s under Ignore', () => {
    const s = status('json', '{"op":"add"}');
    assert.equal(s.code, 400);
    assert.equal(s.message, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
    const ignored = status('json', '{"op":"add"}', { ...builtin, fieldValidation: 'Ignore' });
    assert.equal(ignored.message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  });

  test('patch bodies of the wrong shape are upstream\'s strict decoding errors under Warn and Strict (400)', () => {
    const cases: [PatchKind, string, string][] = [
      ['merge', '[]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
      ['merge', '1', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
      ['merge', '"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
      ['json', '[1]', 'json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
      ['json', '[{"op":1,"path":2}]', 'json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
      ['json', '[{"op":"add","path":"/a","value":1},{"op":"add","from":[],"path":"/b"}]', 'json: cannot unmarshal array into Go struct field jsonPatchOp.from of type string'],
    ];
    for (const [kind, body, message] of cases) {
      for (const fieldValidation of ['Warn', 'Strict'] as const) {
        const s = status(kind, body, { ...builtin, fieldValidation });
        assert.deepEqual([s.code, s.reason, s.message], [400, 'BadRequest', `error decoding patch: ${message}`], `${kind} ${body} ${fieldValidation}`);
      }
    }
  });

  test('a JSON patch of more than 10,000 operations answers 413', () => {
    const ops = JSON.stringify(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' })));
    const s = status('json', ops);
    assert.equal(s.code, 413);
    assert.equal(s.reason, 'RequestEntityTooLarge');
    assert.equal(s.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  test('a failing test operation answers 422 with upstream\'s generic Status', () => {
    assert.deepStrictEqual(status('json', '[{"op":"test","path":"/data/a","value":"2"}]'), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });

  test('a path that is not there, or a malformed operation, answers 422', () => {
    for (const body of ['[{"op":"remove","path":"/data/zz"}]', '[{"op":"replace","path":"/spec/x","value":1}]', '[{"op":"frobnicate","path":"/data"}]', '[{"op":"add","value":1}]', '[null]']) {
      assert.equal(status('json', body).code, 422, body);
    }
  });

  test('a merge patch that is null (or, with field validation Ignore, a scalar) answers 400 Invalid JSON Patch', () => {
    for (const [body, fieldValidation] of [['null', 'Warn'], ['null', 'Ignore'], ['"x"', 'Ignore'], ['42', 'Ignore']] as const) {
      const s = status('merge', body, { ...builtin, fieldValidation });
      assert.equal(s.code, 400, body);
      assert.equal(s.message, 'Invalid JSON Patch');
    }
  });

  test('a patch whose result is not an object answers 422 on the field "patch"', () => {
    // A merge patch that is an array gets that far only when not first decoded strictly.
    for (const [kind, body, fieldValidation] of [['merge', '[1]', 'Ignore'], ['json', '[{"op":"replace","path":"","value":"x"}]', 'Warn']] as const) {
      const s = status(kind, body, { ...builtin, fieldValidation });
      assert.equal(s.code, 422, kind);
      assert.equal(s.reason, 'Invalid');
      assert.equal(s.details?.causes?.[0]?.field, 'patch');
      assert.match(s.message ?? '', /^ "" is invalid: patch: Invalid value: .*json: cannot unmarshal .* into Go value of type v1\.ConfigMap$/);
    }
  });

  describe('a result whose metadata has a value of the wrong type answers 422 on the field "patch", worded as the decoder words it', () => {
    const rows: { name: string; kind: PatchKind; body: string; error: string }[] = [
      { name: 'merge: metadata a string', kind: 'merge', body: '{"metadata":"x"}', error: 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta' },
      { name: 'json: metadata a list', kind: 'json', body: '[{"op":"replace","path":"/metadata","value":[]}]', error: 'json: cannot unmarshal array into Go struct field ConfigMap.metadata of type v1.ObjectMeta' },
      { name: 'merge: labels a list', kind: 'merge', body: '{"metadata":{"labels":[]}}', error: 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string' },
      { name: 'merge: a label value a number', kind: 'merge', body: '{"metadata":{"labels":{"a":1}}}', error: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string' },
      { name: 'merge: finalizers a string', kind: 'merge', body: '{"metadata":{"finalizers":"x"}}', error: 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string' },
      { name: 'merge: uid a number', kind: 'merge', body: '{"metadata":{"uid":1}}', error: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID' },
      { name: 'merge: an owner reference a string', kind: 'merge', body: '{"metadata":{"ownerReferences":["a"]}}', error: 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference' },
      { name: 'merge: managedFields a string', kind: 'merge', body: '{"metadata":{"managedFields":"x"}}', error: 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry' },
      { name: 'strategic: metadata a string', kind: 'strategic', body: '{"metadata":"x"}', error: 'cannot restore struct from: string' },
      { name: 'strategic: labels a list', kind: 'strategic', body: '{"metadata":{"labels":[]}}', error: 'cannot restore map from slice' },
      { name: 'strategic: finalizers a string', kind: 'strategic', body: '{"metadata":{"finalizers":"x"}}', error: 'cannot restore slice from string' },
      { name: 'strategic: a label value a number', kind: 'strategic', body: '{"metadata":{"labels":{"a":1}}}', error: 'cannot convert int64 to string' },
    ];
    for (const row of rows) {
      test(row.name, () => {
        const s = status(row.kind, row.body);
        assert.equal(s.code, 422);
        assert.equal(s.reason, 'Invalid');
        assert.equal(s.details?.causes?.[0]?.field, 'patch');
        assert.ok(s.message?.startsWith(' "" is invalid: patch: Invalid value: "'), s.message);
        assert.ok(s.message?.endsWith(`": ${row.error}`), s.message);
      });
    }

    test('strategic merge names the patch, as Go prints it', () => {
      assert.equal(status('strategic', '{"metadata":{"labels":[]}}').message, ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:[]]]": cannot restore map from slice');
    });

    test('a custom resource\'s metadata decodes into ObjectMeta alone (fields named without "metadata."), and null leaves a field unset', () => {
      assert.throws(() => applyPatch('merge', current, bytes('{"metadata":{"labels":[]}}'), custom), (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 422);
        assert.match(err.message, /json: cannot unmarshal array into Go struct field ObjectMeta\.labels of type map\[string\]string$/);
        return true;
      });
      assert.deepStrictEqual(applyPatch('merge', current, bytes('{"metadata":{"labels":null}}'), builtin), current);
    });
  });

  test('a strategic merge patch that is not an object answers 400', () => {
    const s = status('strategic', '[]');
    assert.equal(s.code, 400);
    assert.equal(s.message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  test('a malformed strategic-merge directive answers 400 with upstream\'s message', () => {
    const s = status('strategic', '{"metadata":{"$retainKeys":"name"}}');
    assert.equal(s.code, 400);
    assert.equal(s.message, 'invalid patch format of retainKeys');
  });

  test('an unclassified strategic merge error answers 500 without a reason, as upstream', () => {
    const owned = { ...current, metadata: { ...current.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' }] } };
    assert.throws(() => applyPatch('strategic', owned, bytes('{"metadata":{"ownerReferences":[{"name":"x"}]}}'), builtin), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 500);
      assert.equal(err.reason, '');
      assert.equal(err.message, 'map: map[name:x] does not contain declared merge key: uid');
      return true;
    });
  });
});
