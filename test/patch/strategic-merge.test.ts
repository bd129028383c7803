// Strategic merge patch, case by case. The cases with an upstream name come from the
// tables of k8s.io/apimachinery's strategicpatch tests (the object a kube-apiserver holds,
// the patch kubectl sends, the object that results), over a test type with every kind of
// field those tables use; the others cover each directive and each error class.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { PatchError } from '../../src/patch/patch-error.ts';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge.ts';
import type { Definitions, Schema } from '../../src/schema/types.ts';

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const mergingList = (items: Schema, strategy = 'merge'): Schema => ({
  type: 'array',
  items,
  'x-kubernetes-patch-strategy': strategy,
  'x-kubernetes-patch-merge-key': 'name',
});

/** The upstream tests' MergeItem and RetainKeysMergeItem, with their struct tags as schema markers. */
const defs: Definitions = {
  mergeItem: {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      mergingList: mergingList(ref('mergeItem')),
      nonMergingList: { type: 'array', items: ref('mergeItem') },
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
      nonMergingIntList: { type: 'array', items: { type: 'integer' } },
      mergeItemPtr: mergingList(ref('mergeItem')),
      simpleMap: { type: 'object', additionalProperties: str },
      replacingItem: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-patch-strategy': 'replace' },
      retainKeysMap: { ...ref('retainKeysMergeItem'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainKeysMergingList: mergingList(ref('mergeItem'), 'merge,retainKeys'),
    },
  },
  retainKeysMergeItem: {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      simpleMap: { type: 'object', additionalProperties: str },
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
      mergingList: mergingList(ref('mergeItem')),
      nonMergingList: { type: 'array', items: ref('mergeItem') },
    },
  },
};
const schema = ref('mergeItem');

interface Case {
  name: string;
  current: string;
  patch: string;
  result?: string;
  /** PatchError code and a fragment of its message. */
  error?: [number, string];
}

const cases: Case[] = [
  // ---- maps ----
  { name: 'add field to map', current: 'name: 1\nother: a', patch: 'value: 1', result: 'name: 1\nvalue: 1\nother: a' },
  { name: 'add field and delete field from map', current: 'name: 1\nother: a', patch: 'name: null\nvalue: 1', result: 'value: 1\nother: a' },
  { name: 'delete field from nested map', current: 'simpleMap: {key1: 1, key2: 1, other: a}', patch: 'simpleMap: {key2: null}', result: 'simpleMap: {key1: 1, other: a}' },
  { name: 'null for a field the object lacks is ignored', current: 'name: 1', patch: 'value: null', result: 'name: 1' },
  { name: 'a value of another type replaces', current: 'simpleMap: {a: b}', patch: 'simpleMap: [x]', result: 'simpleMap: [x]' },
  { name: 'a new map keeps no nulls (discardNullValuesFromPatch)', current: 'name: 1', patch: 'simpleMap: {a: x, b: null}', result: 'name: 1\nsimpleMap: {a: x}' },
  { name: 'delete map from nested map ($patch: delete)', current: 'simpleMap: {key1: 1, key2: 1}', patch: 'simpleMap: {$patch: delete}', result: 'simpleMap: {}' },
  { name: 'delete all keys from map ($patch: replace)', current: 'name: 1\nvalue: 1', patch: '$patch: replace', result: '{}' },
  { name: 'add key and delete all keys from map', current: 'name: 1\nvalue: 1', patch: 'other: a\n$patch: replace', result: 'other: a' },
  { name: 'replace RawExtension field (patch strategy replace)', current: 'name: o\nreplacingItem: {Some: Generic, Yaml: Inside}', patch: 'replacingItem: {Newly: Modified, Yaml: Inside}', result: 'name: o\nreplacingItem: {Newly: Modified, Yaml: Inside}' },
  { name: '$patch: merge on a map is an unknown patch type', current: 'simpleMap: {a: b}', patch: 'simpleMap: {$patch: merge, c: d}', error: [500, 'unknown patch type: merge in map: map[$patch:merge c:d]'] },
  { name: 'an unknown $patch value', current: 'name: 1', patch: '$patch: foo', error: [500, 'unknown patch type: foo in map: map[$patch:foo]'] },
  { name: 'a new field drops the maps inside it that carry $patch (removeDirectives)', current: 'name: 1', patch: 'mergingList: [{name: a}, {name: b, $patch: delete}]\nsimpleMap: {$patch: delete}', result: 'name: 1\nmergingList: [{name: a}]' },
  { name: 'a field set to a map with $patch is not added', current: 'name: 1', patch: 'retainKeysMap: {$patch: replace, name: x}', result: 'name: 1' },

  // ---- lists without merge strategy ----
  { name: 'replace list of scalars', current: 'nonMergingIntList: [1, 2]', patch: 'nonMergingIntList: [2, 3]', result: 'nonMergingIntList: [2, 3]' },
  { name: 'replace non merging list nested in merging list', current: 'mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]', result: 'mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]' },
  { name: 'lists of lists are not supported', current: 'mergingIntList: [[1]]', patch: 'mergingIntList: [[2]]', error: [422, 'lists of lists are not supported'] },

  // ---- lists of scalars with merge strategy ----
  { name: 'unique scalars when merging lists', current: 'mergingIntList: [1, 2]', patch: 'mergingIntList: [2, 3]', result: 'mergingIntList: [1, 2, 3]' },
  { name: 'preserve the order from the patch in a merging int list', current: 'mergingIntList: [1, 2, 3]', patch: 'mergingIntList: [3, 1, 2]', result: 'mergingIntList: [3, 1, 2]' },
  { name: 'preserve the order from the patch in a merging int list 2', current: 'mergingIntList: [1, 2, 3]', patch: 'mergingIntList: [3, 1]', result: 'mergingIntList: [2, 3, 1]' },
  { name: 'merge lists of scalars', current: 'mergingIntList: [1, 2, 4]', patch: '$setElementOrder/mergingIntList: [1, 2, 3]\nmergingIntList: [3]', result: 'mergingIntList: [1, 2, 3, 4]' },
  { name: 'add an item in a list of primitives and preserve order', current: 'mergingIntList: [1, 4, 2]', patch: '$setElementOrder/mergingIntList: [3, 1, 2]\nmergingIntList: [3]', result: 'mergingIntList: [3, 1, 4, 2]' },
  { name: 'delete items in lists of scalars', current: 'mergingIntList: [1, 2, 3, 4]', patch: '$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]', result: 'mergingIntList: [1, 2, 4]' },
  { name: 'delete all duplicate items in lists of scalars', current: 'mergingIntList: [1, 2, 3, 3, 4]', patch: '$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]', result: 'mergingIntList: [1, 2, 4]' },
  { name: 'delete an item in a list of primitives and preserve order', current: 'mergingIntList: [1, 2, 3]', patch: '$setElementOrder/mergingIntList: [2, 1]\n$deleteFromPrimitiveList/mergingIntList: [3]', result: 'mergingIntList: [2, 1]' },
  { name: '$setElementOrder contains item that is not present in the int list', current: 'mergingIntList: [1, 3]', patch: '$setElementOrder/mergingIntList: [3, 2, 1]', result: 'mergingIntList: [3, 1]' },
  { name: 'order in $setElementOrder and the int patch list must match', current: 'mergingIntList: [1, 3, 2]', patch: '$setElementOrder/mergingIntList: [1, 2, 3]\nmergingIntList: [3, 1]', error: [500, "doesn't match $setElementOrder list"] },
  { name: '$deleteFromPrimitiveList of nonexistent item does not add it', current: 'mergingIntList: [1, 2]', patch: '$deleteFromPrimitiveList/mergingIntList: [3]', result: 'mergingIntList: [1, 2]' },
  { name: '$deleteFromPrimitiveList on a null list does not add the item', current: 'mergingIntList: null', patch: '$deleteFromPrimitiveList/mergingIntList: [3]', result: 'mergingIntList: null' },
  { name: '$deleteFromPrimitiveList on a missing list does not add it', current: 'foo: [bar]', patch: '$deleteFromPrimitiveList/mergingIntList: [3]', result: 'foo: [bar]' },
  { name: '$deleteFromPrimitiveList deletes from a list without merge strategy', current: 'nonMergingIntList: [1, 2, 3]', patch: '$deleteFromPrimitiveList/nonMergingIntList: [2]', result: 'nonMergingIntList: [1, 3]' },
  { name: '$deleteFromPrimitiveList without a field name', current: 'name: 1', patch: '$deleteFromPrimitiveList: [2]', error: [400, 'invalid patch format of primitive list'] },

  // ---- lists of maps with merge strategy ----
  { name: 'merge lists of maps', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]\nmergingList: [{name: 4, value: 4}, {name: 3, value: 3}]', result: 'mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]' },
  { name: 'merge lists of maps with conflict', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]\nmergingList: [{name: 2, value: 2}, {name: 3, value: 3}]', result: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]' },
  { name: 'add field to map in merging list with conflict', current: 'mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, value: 1}, {name: 2, value: 2}]', result: 'mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]' },
  { name: 'delete field from map in merging list', current: 'mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, value: null}]', result: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]' },
  { name: 'delete missing field from map in merging list with conflict', current: 'mergingList: [{name: 1, other: a}, {name: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{name: 1, value: null}, {name: 2, value: 2}]', result: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]' },
  { name: 'delete map from merging list', current: 'mergingList: [{name: 1}, {name: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 2}]\nmergingList: [{name: 1, $patch: delete}]', result: 'mergingList: [{name: 2, other: b}]' },
  { name: 'delete missing map from merging list with conflict', current: 'mergingList: [{name: 3, other: a}]', patch: '$setElementOrder/mergingList: [{name: 2}]\nmergingList: [{name: 2}, {name: 1, $patch: delete}]', result: 'mergingList: [{name: 2}, {name: 3, other: a}]' },
  { name: 'add map and delete map from merging list', current: 'mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]', patch: '$setElementOrder/mergingList: [{name: 2}, {name: 3}]\nmergingList: [{name: 3}, {name: 1, $patch: delete}]', result: 'mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]' },
  { name: 'add map and delete map from merging list with conflict', current: 'mergingList: [{name: 1, other: a}, {name: 4, other: c}]', patch: '$setElementOrder/mergingList: [{name: 2}, {name: 3}]\nmergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]', result: 'mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]' },
  { name: 'delete all duplicate entries in a merging list', current: 'mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]', patch: 'mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]', result: 'mergingList: [{name: 2, value: a}]' },
  { name: 'delete all items from merging list ($patch: replace)', current: 'mergingList: [{name: 1}, {name: 2}]', patch: 'mergingList: [{$patch: replace}]', result: 'mergingList: []' },
  { name: '$patch: replace in a list keeps only the patch items', current: 'mergingList: [{name: 1, value: a}, {name: 2}]', patch: 'mergingList: [{name: 3}, {$patch: replace}, {name: 1}]', result: 'mergingList: [{name: 3}, {name: 1}]' },
  { name: 'merge empty merging lists', current: 'mergingList: []', patch: 'mergingList: []', result: 'mergingList: []' },
  { name: 'preserve the order from the patch in a merging list', current: 'mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]', patch: 'mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]', result: 'mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]' },
  { name: 'preserve the order from the patch in a merging list 2', current: 'mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]', patch: 'mergingList: [{name: 3, value: c}, {name: 1, value: a}]', result: 'mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]' },
  { name: 'new items without $setElementOrder go first', current: 'mergingList: [{name: 1}, {name: 2}]', patch: 'mergingList: [{name: 3}]', result: 'mergingList: [{name: 3}, {name: 1}, {name: 2}]' },
  { name: 'add an item in a list and preserve order', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}]\nmergingList: [{name: 3, value: 3}]', result: 'mergingList: [{name: 3, value: 3}, {name: 1, other: a}, {name: 2, value: 2, other: b}]' },
  { name: 'add multiple items in a list and preserve order', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]\nmergingList: [{name: 4, value: 4}, {name: 3, value: 3}]', result: 'mergingList: [{name: 1, other: a}, {name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]' },
  { name: 'delete an item in a list and preserve order', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]', patch: '$setElementOrder/mergingList: [{name: 2}, {name: 1}]\nmergingList: [{name: 3, $patch: delete}]', result: 'mergingList: [{name: 2, value: 2, other: b}, {name: 1, other: a}]' },
  { name: 'change an item in a list and preserve order', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]', patch: '$setElementOrder/mergingList: [{name: 2}, {name: 3}, {name: 1}]\nmergingList: [{name: 3, value: x}]', result: 'mergingList: [{name: 2, value: 2, other: b}, {name: 3, value: x}, {name: 1, other: a}]' },
  { name: 'add and delete an item in a list and preserve order', current: 'mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]', patch: '$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]\nmergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]', result: 'mergingList: [{name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 1, other: a}]' },
  { name: 'set elements order in a list', current: 'mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}]', patch: '$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]', result: 'mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a}]' },
  { name: '$setElementOrder contains item that is not present in the list', current: 'mergingList: [{name: 1}, {name: 3}]', patch: '$setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}]\nmergingList: [{name: 3, value: 3}, {name: 1, value: 1}]', result: 'mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]' },
  { name: 'order in $setElementOrder and the patch list must match', current: 'mergingList: [{name: 1}, {name: 3}, {name: 2}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]\nmergingList: [{name: 3, value: 3}, {name: 1, value: 1}]', error: [500, "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n"] },
  { name: 'add map to merging list by pointer', current: 'mergeItemPtr: [{name: 1, other: a}, {name: 3}]', patch: '$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]\nmergeItemPtr: [{name: 2}]', result: 'mergeItemPtr: [{name: 1, other: a}, {name: 2}, {name: 3}]' },
  { name: 'add field to map in merging list nested in merging list with value conflict', current: 'mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: a, other: c}, {name: 2, value: b, other: d}]}, {name: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}]', result: 'mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1, other: c}, {name: 2, value: 2, other: d}]}, {name: 2, other: b}]' },
  { name: 'nested $setElementOrder with an item the object lacks', current: 'mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other: b}]', patch: '$setElementOrder/mergingList: [{name: 1}, {name: 2}]\nmergingList: [{$setElementOrder/mergingList: [{name: 2}, {name: 1}], name: 1, mergingList: [{name: 1, value: 1}]}]', result: 'mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}, {name: 1, value: 1}]}, {name: 2, other: b}]' },
  { name: 'missing merge key should error out', current: 'mergingList: [{name: 1, value: a}]', patch: 'mergingList: [{value: b}]', error: [500, 'map: map[value:b] does not contain declared merge key: name'] },
  { name: '$patch: merge in a list item', current: 'mergingList: [{name: 1}]', patch: 'mergingList: [{name: 1, $patch: merge}]', error: [500, 'merging lists cannot yet be specified in the patch'] },
  { name: '$patch: delete without the merge key', current: 'mergingList: [{name: 1}]', patch: 'mergingList: [{$patch: delete}]', error: [500, 'map: map[$patch:delete] does not contain declared merge key: name'] },
  { name: 'list items of different types', current: 'mergingList: [{name: 1}]', patch: 'mergingList: [x]', error: [500, 'list element types are not identical: [[map[name:1]] [x]]'] },
  { name: '$setElementOrder that is not a list', current: 'mergingList: [{name: 1}]', patch: '$setElementOrder/mergingList: x', error: [500, 'expected a []interface {}, but received a string'] },
  { name: '$setElementOrder without a field name', current: 'name: 1', patch: '$setElementOrder: []', error: [400, 'invalid patch format of setElementOrder list'] },

  // ---- retainKeys ----
  { name: 'retainKeys map can add a field when no retainKeys directive present', current: 'retainKeysMap: {name: foo}', patch: 'retainKeysMap: {value: bar}', result: 'retainKeysMap: {name: foo, value: bar}' },
  { name: 'retainKeys map merge an empty map', current: 'retainKeysMap: {name: foo, value: a}', patch: 'retainKeysMap: {}', result: 'retainKeysMap: {name: foo, value: a}' },
  { name: 'retainKeys list can delete a field when no retainKeys directive present', current: 'retainKeysMergingList: [{name: bar}, {name: foo, value: a}]', patch: 'retainKeysMergingList: [{name: foo, value: null}]', result: 'retainKeysMergingList: [{name: bar}, {name: foo}]' },
  { name: 'retainKeys map clears the fields it does not list', current: 'retainKeysMap: {name: foo, value: bar, other: x, simpleMap: {key1: a}}', patch: 'retainKeysMap: {$retainKeys: [name, simpleMap, value], value: baz}', result: 'retainKeysMap: {name: foo, value: baz, simpleMap: {key1: a}}' },
  { name: 'retainKeys map delete nested non-merging list with conflict', current: 'retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}, {name: c}]}', patch: 'retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}', result: 'retainKeysMap: {name: foo, value: bar}' },
  { name: 'retainKeys map adds an item in nested merging int list', current: 'retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}', patch: 'retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name], mergingIntList: [4]}', result: 'retainKeysMap: {name: foo, mergingIntList: [1, 2, 4, 3]}' },
  { name: 'retainKeys map adds an item and deletes an item in nested merging int list', current: 'retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}', patch: 'retainKeysMap: {$retainKeys: [mergingIntList, name], mergingIntList: [5], $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3, 5]}', result: 'retainKeysMap: {name: foo, mergingIntList: [1, 3, 5, 4]}' },
  { name: 'retainKeys map adds an item in nested merging list', current: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}', patch: 'retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}, {name: b}, {name: c}], mergingList: [{name: c}]}', result: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}, {name: x}]}' },
  { name: 'retainKeys map deletes an item in nested merging list', current: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}', patch: 'retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}], mergingList: [{name: b, $patch: delete}]}', result: 'retainKeysMap: {name: foo, mergingList: [{name: a}, {name: x}]}' },
  { name: 'a patch field missing from $retainKeys', current: 'retainKeysMap: {name: foo}', patch: 'retainKeysMap: {$retainKeys: [name], value: bar}', error: [400, 'invalid patch format of retainKeys'] },
  { name: '$retainKeys that is not a list', current: 'retainKeysMap: {name: foo}', patch: 'retainKeysMap: {$retainKeys: name}', error: [400, 'invalid patch format of retainKeys'] },
];

function yaml(text: string): unknown {
  return YAML.parse(text);
}

describe('strategic merge patch', () => {
  for (const c of cases) {
    test(c.name, () => {
      const current = yaml(c.current);
      const patch = yaml(c.patch);
      const before = [JSON.stringify(current), JSON.stringify(patch)];
      if (c.error !== undefined) {
        const [code, fragment] = c.error;
        assert.throws(() => applyStrategicMergePatch(defs, schema, current, patch), (err: unknown) => {
          assert.ok(err instanceof PatchError, String(err));
          assert.equal(err.code, code, err.message);
          assert.ok(err.message.includes(fragment), `${JSON.stringify(err.message)} should contain ${JSON.stringify(fragment)}`);
          return true;
        });
      } else {
        assert.deepStrictEqual(applyStrategicMergePatch(defs, schema, current, patch), yaml(c.result!));
      }
      assert.deepStrictEqual([JSON.stringify(current), JSON.stringify(patch)], before, 'the inputs are unchanged');
    });
  }

  test('a null patch changes nothing', () => {
    assert.deepStrictEqual(applyStrategicMergePatch(defs, schema, { name: 'a' }, null), { name: 'a' });
  });

  test('a patch that is not an object is a bad request', () => {
    assert.throws(() => applyStrategicMergePatch(defs, schema, { name: 'a' }, [1]), (err: unknown) => err instanceof PatchError && err.code === 400);
  });

  test('the result shares nothing with the inputs', () => {
    const current = { simpleMap: { a: 'b' }, nonMergingList: [{ name: 'x' }] };
    const patch = { mergingList: [{ name: 'y' }] };
    const result = applyStrategicMergePatch(defs, schema, current, patch) as any;
    result.simpleMap.a = 'changed';
    result.nonMergingList[0].name = 'changed';
    result.mergingList[0].name = 'changed';
    assert.deepStrictEqual(current, { simpleMap: { a: 'b' }, nonMergingList: [{ name: 'x' }] });
    assert.deepStrictEqual(patch, { mergingList: [{ name: 'y' }] });
  });

  test('objects nested past the depth bound fail without exhausting the stack', () => {
    let current: any = {};
    let patch: any = {};
    const top = { current, patch };
    for (let i = 0; i < 5000; i++) {
      current.simpleMap = {};
      patch.simpleMap = {};
      current = current.simpleMap;
      patch = patch.simpleMap;
    }
    assert.throws(() => applyStrategicMergePatch(defs, schema, top.current, top.patch), (err: unknown) => err instanceof PatchError && err.code === 400);
  });
});
