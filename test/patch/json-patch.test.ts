// JSON Patch: every enabled case of the public conformance suite (read from
// ../shared/testdata/json-patch), then the limits and error classes kube-apiserver has.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { applyJsonPatch, decodeJsonPatch, maxJSONPatchOperations } from '../../src/patch/json-patch.ts';
import { PatchError } from '../../src/patch/patch-error.ts';

interface ConformanceCase {
  comment?: string;
  doc?: unknown;
  patch?: unknown;
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

// The suite lives beside the repository (../shared/testdata), not in it; PLINTH_TESTDATA may point elsewhere.
const testdata = path.join(process.env.PLINTH_TESTDATA ?? path.resolve(import.meta.dirname, '../../../shared/testdata'), 'json-patch');
const missingSuite = existsSync(testdata) ? false : `the JSON Patch conformance suite is not at ${testdata}`;

function load(file: string): ConformanceCase[] {
  return JSON.parse(readFileSync(path.join(testdata, file), 'utf8')) as ConformanceCase[];
}

function failsWith(code: number) {
  return (err: unknown) => err instanceof PatchError && err.code === code;
}

for (const file of ['tests.json', 'spec_tests.json']) {
  describe(`JSON Patch conformance: ${file}`, { skip: missingSuite }, () => {
    if (missingSuite) return;
    load(file).forEach((c, i) => {
      const name = `#${i} ${c.comment ?? c.error ?? JSON.stringify(c.patch)}`;
      if (c.patch === undefined) return; // a comment-only record
      if (c.disabled) {
        test(name, { skip: 'disabled in the suite' }, () => {});
        return;
      }
      test(name, () => {
        const before = JSON.stringify(c.doc);
        if (c.error !== undefined) {
          assert.throws(() => applyJsonPatch(c.doc, c.patch), failsWith(422), c.error);
        } else {
          const expected = Object.hasOwn(c, 'expected') ? c.expected : c.doc;
          assert.deepStrictEqual(applyJsonPatch(c.doc, c.patch), expected);
        }
        assert.equal(JSON.stringify(c.doc), before, 'the input document is unchanged');
      });
    });
  });
}

describe('JSON Patch beyond the suite', () => {
  test('a null patch is an empty patch (Go decodes null into an empty list)', () => {
    assert.deepStrictEqual(applyJsonPatch({ a: 1 }, null), { a: 1 });
  });

  test('a patch that is not an array, or holds a non-object, is malformed (400)', () => {
    assert.throws(() => decodeJsonPatch({ op: 'add' }), failsWith(400));
    assert.throws(() => decodeJsonPatch('x'), failsWith(400));
    assert.throws(() => decodeJsonPatch([1]), failsWith(400));
    assert.deepStrictEqual(decodeJsonPatch([null]), [null]);
  });

  test('a null operation or a non-string op fails when applied (422)', () => {
    assert.throws(() => applyJsonPatch({}, [null]), failsWith(422));
    assert.throws(() => applyJsonPatch({}, [{ op: 1, path: '/a', value: 1 }]), failsWith(422));
  });

  test(`more than ${maxJSONPatchOperations} operations are refused before any is applied (413)`, () => {
    const ops = Array.from({ length: maxJSONPatchOperations + 1 }, () => ({ op: 'add', path: '/a', value: 1 }));
    assert.throws(() => applyJsonPatch({}, ops), failsWith(413));
    assert.deepStrictEqual(applyJsonPatch({}, ops.slice(1)), { a: 1 });
  });

  test('copies may grow the document by at most maxCopyBytes (422 past it)', () => {
    const doc = { a: 'x'.repeat(100) };
    const copies = [1, 2, 3].map((i) => ({ op: 'copy', from: '/a', path: `/b${i}` }));
    assert.throws(() => applyJsonPatch(doc, copies, { maxCopyBytes: 250 }), failsWith(422));
    assert.equal(Object.keys(applyJsonPatch(doc, copies.slice(0, 2), { maxCopyBytes: 250 }) as object).length, 3);
  });

  test('copying the root into itself cannot double the document without bound', () => {
    const ops = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` }));
    assert.throws(() => applyJsonPatch({ seed: 'x'.repeat(64) }, ops), failsWith(422));
  });

  test('a copied value is independent of its source', () => {
    const result = applyJsonPatch({ a: { b: 1 } }, [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'replace', path: '/c/b', value: 2 },
    ]);
    assert.deepStrictEqual(result, { a: { b: 1 }, c: { b: 2 } });
  });

  test('neither the document nor the patch is modified, and the result shares nothing with them', () => {
    const doc = { list: [{ x: 1 }], map: { k: 'v' } };
    const patch = [{ op: 'add', path: '/list/-', value: { y: 2 } }, { op: 'remove', path: '/map/k' }];
    const result = applyJsonPatch(doc, patch) as any;
    assert.deepStrictEqual(doc, { list: [{ x: 1 }], map: { k: 'v' } });
    result.list[0].x = 9;
    result.list[1].y = 9;
    assert.deepStrictEqual(doc.list, [{ x: 1 }]);
    assert.deepStrictEqual(patch[0]!.value, { y: 2 });
  });

  test('escaped pointer tokens and the "__proto__" key are plain members', () => {
    const result = applyJsonPatch({}, [
      { op: 'add', path: '/a~1b', value: 1 },
      { op: 'add', path: '/m~0n', value: 2 },
      { op: 'add', path: '/__proto__', value: { polluted: true } },
    ]) as Record<string, unknown>;
    assert.equal(result['a/b'], 1);
    assert.equal(result['m~n'], 2);
    assert.ok(Object.hasOwn(result, '__proto__'));
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.throws(() => applyJsonPatch({}, [{ op: 'add', path: '/a~2', value: 1 }]), failsWith(422));
  });

  test('a document nested 200,000 levels deep is tested and copied without exhausting the stack', () => {
    const depth = 200_000;
    const deep = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    const result = applyJsonPatch({ deep }, [
      { op: 'test', path: '/deep', value: deep },
      { op: 'copy', from: '/deep', path: '/again' },
    ], { maxCopyBytes: 0 }) as { again: unknown };
    let level = 0;
    for (let node = result.again; Array.isArray(node) && node.length > 0; node = node[0]) level++;
    assert.equal(level, depth - 1);
  });
});

test('a replace of a member its object lacks sets it, as upstream\'s evanphx/json-patch v4 does; a missing parent or array index still fails', () => {
  const doc = { metadata: { name: 'web' } };
  assert.deepEqual(applyJsonPatch(doc, [{ op: 'replace', path: '/metadata/annotations', value: { a: 'b' } }]), { metadata: { name: 'web', annotations: { a: 'b' } } });
  assert.throws(() => applyJsonPatch(doc, [{ op: 'replace', path: '/spec/replicas', value: 2 }]), PatchError);
  assert.throws(() => applyJsonPatch({ items: [] }, [{ op: 'replace', path: '/items/0', value: 1 }]), PatchError);
});
