// FieldSet against a model: sets of paths as plain sets of their serialized forms. Random
// sets, built or read lazily from FieldsV1 (the very objects encoded, or a fresh parse as
// managedFields arrive), go through every operation, their results again and again (the
// results share nodes with their operands, and remember their encodings); each answer
// must be the model's, and each result must encode to FieldsV1 that reads back to it.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from '../../src/apply/field-set.ts';
import { decodeFieldsV1, encodeFieldsV1 } from '../../src/apply/fields-v1.ts';
import { fieldElement, indexElement, keyElement, valueElement, type Path } from '../../src/apply/field-path.ts';
import { random } from '../helpers/random.ts';

const elements = [
  fieldElement('a'), fieldElement('b'), fieldElement('spec'), fieldElement('x<y'),
  keyElement(['name'], ['c1']), keyElement(['name', 'port'], ['c1', 80]),
  valueElement('v'), valueElement(3), indexElement(0), indexElement(12),
];

type Model = Set<string>;
const keyOf = (path: Path) => JSON.stringify(path);
const pathOf = (k: string) => JSON.parse(k) as Path;
const isPrefix = (prefix: readonly string[], path: readonly string[]) => prefix.length <= path.length && prefix.every((pe, i) => pe === path[i]);

const model = {
  union: (a: Model, b: Model) => new Set([...a, ...b]),
  difference: (a: Model, b: Model) => new Set([...a].filter((p) => !b.has(p))),
  recursiveDifference: (a: Model, b: Model) => new Set([...a].filter((p) => ![...b].some((q) => isPrefix(pathOf(q), pathOf(p))))),
  intersection: (a: Model, b: Model) => new Set([...a].filter((p) => b.has(p))),
  leaves: (a: Model) => new Set([...a].filter((p) => ![...a].some((q) => q !== p && isPrefix(pathOf(p), pathOf(q))))),
};

const members = (set: FieldSet): Model => new Set(set.paths().map(keyOf));

describe('FieldSet against a model', () => {
  test('every operation on built and lazily read sets, and on their results, answers as the model and encodes back', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
      const randomPaths = (): Path[] => {
        const count = Math.floor(rand() * 8);
        return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(elements)));
      };
      /** The same paths as a set of one of the three kinds the apply code meets. */
      const asSet = (paths: Path[]): FieldSet => {
        const built = FieldSet.of(...paths);
        switch (pick(['built', 'encoded', 'parsed'] as const)) {
          case 'built': return built;
          case 'encoded': return decodeFieldsV1(encodeFieldsV1(built));
          case 'parsed': return decodeFieldsV1(JSON.parse(JSON.stringify(encodeFieldsV1(built))));
        }
      };
      const pool: Array<{ set: FieldSet; model: Model; how: string }> = [];
      for (let i = 0; i < 4; i++) {
        const paths = randomPaths();
        pool.push({ set: asSet(paths), model: new Set(paths.map(keyOf)), how: `set ${i}` });
      }
      for (let step = 0; step < 12; step++) {
        const a = pick(pool);
        const b = pick(pool);
        const what = `seed ${seed}, step ${step}`;
        assert.equal(a.set.isSubsetOf(b.set), [...a.model].every((p) => b.model.has(p)), `${what}: ${a.how} isSubsetOf ${b.how}`);
        assert.equal(a.set.equals(b.set), a.model.size === b.model.size && [...a.model].every((p) => b.model.has(p)), `${what}: ${a.how} equals ${b.how}`);
        assert.equal(a.set.size(), a.model.size, `${what}: size of ${a.how}`);
        assert.equal(a.set.isEmpty(), a.model.size === 0, `${what}: isEmpty of ${a.how}`);
        assert.equal(a.set.intersects(b.set), [...a.model].some((p) => b.model.has(p)), `${what}: ${a.how} intersects ${b.how}`);
        for (const k of [...a.model, ...b.model]) assert.equal(a.set.has(pathOf(k)), a.model.has(k), `${what}: ${a.how} has ${k}`);
        const op = pick(['union', 'difference', 'recursiveDifference', 'intersection', 'leaves'] as const);
        const set = op === 'leaves' ? a.set.leaves() : a.set[op](b.set);
        const expected = op === 'leaves' ? model.leaves(a.model) : model[op](a.model, b.model);
        const how = op === 'leaves' ? `leaves(${a.how})` : `${op}(${a.how}, ${b.how})`;
        assert.deepEqual(members(set), expected, `${what}: ${how}`);
        // Encoded (the operands' memoized encodings may be reused) and read back: the same paths.
        assert.deepEqual(members(decodeFieldsV1(JSON.parse(JSON.stringify(encodeFieldsV1(set))))), expected, `${what}: ${how} encoded and read back`);
        // The operands are unchanged by the operation.
        assert.deepEqual(members(a.set), a.model, `${what}: ${a.how} after ${how}`);
        assert.deepEqual(members(b.set), b.model, `${what}: ${b.how} after ${how}`);
        pool.push({ set: rand() < 0.3 ? decodeFieldsV1(encodeFieldsV1(set)) : set, model: expected, how });
      }
    }
  });
});
