// Strategic merge patch, as kube-apiserver applies it
// (k8s.io/apimachinery/pkg/util/strategicpatch: StrategicMergeMapPatch), driven by the
// patch metadata of our schemas instead of Go struct tags.
//
// - Maps merge key by key; null deletes a key; a value of another type replaces.
// - Lists are replaced, unless the field's strategy is "merge": lists of maps merge
//   item by item on the merge key, lists of scalars merge as sets.
// - Directives: `$patch: replace` (a map: use the patch as is; a list item: replace the
//   whole list with the patch's other items), `$patch: delete` (a map: empty it; a list
//   item: remove the items with its merge key), `$retainKeys` (clear the keys it does
//   not list), `$deleteFromPrimitiveList/<field>` (remove scalars from a merged list),
//   `$setElementOrder/<field>` (the order of the list after merging).
// - Order: items the patch names come in the patch's order (or $setElementOrder's),
//   interleaved with the items only the server has, which keep their relative order.
//   New items without $setElementOrder go before the server's items, as upstream.
// - A value the object lacks is taken from the patch without its null members and
//   without the maps inside it that carry `$patch`; a deletion list never adds a field
//   and deletes from the list whatever its strategy (upstream since Kubernetes 1.24,
//   1.25 and 1.28: kubernetes#107705, #110472, #117568).
//
// Upstream's code (as in Kubernetes 1.34) is followed step by step, including two Go details that decide the
// order of merged lists: sort.SliceStable's exact steps (go-stable-sort.ts), and the
// deleted-then-appended items that share the original list's backing array, which the
// $setElementOrder pass sees (`serverView` below). Errors are classified and worded as
// upstream's (PatchError): malformed directives 400, lists of lists 422, everything
// else (a missing merge key, an unknown `$patch`) 500 with upstream's message.

import type { Definitions, Schema } from '../schema/types.ts';
import { goString, goTypeName, goValue } from './go-format.ts';
import { goSliceStable } from './go-stable-sort.ts';
import { clone, isObject, setMember, type JsonObject } from '../api/json.ts';
import { hasMember, pruneNulls } from './json-value.ts';
import { PatchError } from './patch-error.ts';
import { fieldPatchMeta, listItemSchema, splitRetainKeys, type PatchMeta } from './patch-meta.ts';

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

/**
 * How deeply maps and lists may nest where both the object and the patch have them.
 * Built-in kinds nest a few dozen levels; the bound keeps recursion far from the stack's end.
 */
const maxStrategicMergeDepth = 1000;

/**
 * Applies a strategic merge patch (a decoded JSON object; null changes nothing) to
 * `original`, an object of the kind `schema` describes. Neither argument is modified;
 * the result shares nothing mutable with them. Throws PatchError.
 */
export function applyStrategicMergePatch(defs: Definitions, schema: Schema, original: unknown, patch: unknown): JsonObject {
  if (!isObject(original)) throw badRequest('invalid JSON document');
  if (patch === null) return clone(original) as JsonObject;
  if (!isObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch} into Go value of type map[string]interface {}`);
  }
  return mergeMap({ defs }, clone(original) as JsonObject, clone(patch) as JsonObject, schema, 0);
}

interface MergeContext {
  defs: Definitions;
}

// ---- errors, worded as k8s.io/apimachinery/pkg/util/mergepatch's ----

function badRequest(message: string): PatchError {
  return new PatchError(400, message);
}

function unclassified(message: string): PatchError {
  return new PatchError(500, message);
}

const errNoListOfLists = () => new PatchError(422, 'lists of lists are not supported');
const errBadPatchFormatForPrimitiveList = () => badRequest('invalid patch format of primitive list');
const errBadPatchFormatForRetainKeys = () => badRequest('invalid patch format of retainKeys');
const errBadPatchFormatForSetElementOrderList = () => badRequest('invalid patch format of setElementOrder list');

function errNoMergeKey(item: JsonObject, mergeKey: string): PatchError {
  return unclassified(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
}

function errBadArgType(expected: string, actual: unknown): PatchError {
  return unclassified(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

function errBadPatchType(directive: unknown, map: JsonObject): PatchError {
  return unclassified(`unknown patch type: ${goString(directive)} in map: ${goValue(map)}`);
}

// ---- values ----

/** The Go kind a decoded JSON value has; two values of different kinds never merge. */
type Kind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

function kindOf(value: unknown): Kind {
  if (value === null) return 'nil';
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  return 'bool';
}

/** The one kind of all items of the lists (upstream's sliceElementType). */
function sliceElementKind(...lists: unknown[][]): Kind {
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const itemKind = kindOf(item);
      if (kind === undefined) {
        kind = itemKind;
        if (kind === 'slice') throw errNoListOfLists();
      } else if (itemKind !== kind) {
        throw unclassified(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (kind === undefined) throw unclassified('no elements in any of the given slices');
  return kind;
}

/** The Go kind of a list's element type (upstream's PatchMetaFromStruct.Name), for one error message. */
function schemaKind(schema: Schema | undefined): string {
  if (schema?.properties !== undefined) return 'struct';
  if (schema?.additionalProperties !== undefined) return 'map';
  return 'interface';
}

function strategyOf(meta: PatchMeta): string {
  const split = splitRetainKeys(meta.strategies);
  if ('error' in split) throw unclassified(split.error);
  return split.strategy;
}

/** The field a `$setElementOrder/<field>` or `$deleteFromPrimitiveList/<field>` key names. */
function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === deleteFromPrimitiveListPrefix ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

// ---- maps ----

function mergeMap(ctx: MergeContext, original: JsonObject, patch: JsonObject, schema: Schema | undefined, depth: number): JsonObject {
  if (depth > maxStrategicMergeDepth) throw badRequest(`strategic merge patch nests deeper than ${maxStrategicMergeDepth} levels`);
  if (hasMember(patch, directiveMarker)) return applyMapDirective(patch[directiveMarker], patch);

  applyRetainKeysDirective(original, patch);
  applySetElementOrder(ctx, original, patch, schema, depth);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey];
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(deleteFromPrimitiveListPrefix)) {
      key = extractKey(patchKey, deleteFromPrimitiveListPrefix);
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const originalValue = original[key];
    const kind = kindOf(originalValue);
    if (!hasMember(original, key) || kind !== kindOf(patchValue)) {
      // A value the original does not have (or has with another type) is taken from the
      // patch, without its nulls and directives; a deletion list never adds anything.
      if (!isDeleteList) takePatchValue(original, key, patchValue, true);
      continue;
    }
    if (kind === 'map') {
      const meta = fieldPatchMeta(ctx.defs, schema, key);
      const merged = strategyOf(meta) === replaceDirective
        ? patchValue
        : mergeMap(ctx, originalValue as JsonObject, patchValue as JsonObject, meta.schema, depth + 1);
      setMember(original, key, merged);
    } else if (kind === 'slice') {
      const meta = fieldPatchMeta(ctx.defs, schema, key);
      // A deletion list deletes whatever the field's strategy.
      const merged = strategyOf(meta) === mergeDirective || isDeleteList
        ? mergeSlice(ctx, originalValue as unknown[], patchValue as unknown[], listItemSchema(ctx.defs, meta.schema), meta.mergeKey, isDeleteList, depth).merged
        : patchValue;
      setMember(original, key, merged);
    } else {
      takePatchValue(original, key, patchValue, false);
    }
  }
  return original;
}

/**
 * Sets `key` to a value from the patch as upstream takes one: nulls inside dropped (when
 * `discardNulls`), directives removed, and nothing set when the value itself is a map
 * with `$patch`.
 */
function takePatchValue(original: JsonObject, key: string, value: unknown, discardNulls: boolean): void {
  if (discardNulls) pruneNulls(value);
  if (isObject(value) && hasMember(value, directiveMarker)) {
    delete original[key];
    return;
  }
  removeDirectives(value);
  setMember(original, key, value);
}

/**
 * Removes, inside `value`, the maps that carry `$patch` (members and list items alike),
 * as upstream's removeDirectives does before storing a value taken from the patch. Only
 * `$patch` counts: `$setElementOrder/...` and the other directive keys stay.
 */
function removeDirectives(value: unknown): void {
  const hasDirective = (item: unknown) => isObject(item) && hasMember(item, directiveMarker);
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      let kept = 0;
      for (const element of item) {
        if (hasDirective(element)) continue;
        item[kept++] = element;
        if (typeof element === 'object' && element !== null) pending.push(element);
      }
      item.length = kept;
    } else if (isObject(item)) {
      for (const key of Object.keys(item)) {
        const member = item[key];
        if (hasDirective(member)) delete item[key];
        else if (typeof member === 'object' && member !== null) pending.push(member);
      }
    }
  }
}

/** `$patch` in a map: replace answers the patch itself (without the directive), delete an empty map. */
function applyMapDirective(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

/**
 * `$retainKeys: [...]`: every key the patch sets must be listed, and the original keeps
 * only the listed keys.
 */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!hasMember(patch, retainKeysDirective)) return;
  const retainKeys = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retainKeys)) throw errBadPatchFormatForRetainKeys();
  const retained = new Set<unknown>(retainKeys);
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
    if (!retained.has(key)) throw errBadPatchFormatForRetainKeys();
  }
  for (const key of Object.keys(original)) {
    if (!retained.has(key)) delete original[key];
  }
}

/**
 * Each `$setElementOrder/<field>`: merges the field's list (when the patch has one) and
 * orders the result by the directive, the server-only items keeping their place
 * relative to the others (upstream's mergePatchIntoOriginal). Consumes the directive
 * and the list from the patch.
 */
function applySetElementOrder(ctx: MergeContext, original: JsonObject, patch: JsonObject, schema: Schema | undefined, depth: number): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const field = extractKey(key, setElementOrderPrefix);
    const foundOriginal = hasMember(original, field);
    const foundPatch = hasMember(patch, field);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      const value = original[field];
      if (!Array.isArray(value)) throw errBadArgType('[]interface {}', value);
      originalList = value;
    }
    if (foundPatch) {
      const value = patch[field];
      if (!Array.isArray(value)) throw errBadArgType('[]interface {}', value);
      patchList = value;
    }
    const meta = fieldPatchMeta(ctx.defs, schema, field);
    const strategy = strategyOf(meta);
    const { mergeKey } = meta;
    validatePatchWithSetOrderList(patchList, order, mergeKey);

    let merged: unknown[];
    let serverView: unknown[];
    if (foundOriginal && !foundPatch) {
      merged = originalList;
      serverView = originalList;
    } else if (!foundOriginal && foundPatch) {
      merged = [...patchList];
      removeDirectives(merged);
      serverView = [];
    } else if (foundOriginal && foundPatch) {
      if (strategy === mergeDirective) {
        ({ merged, serverView } = mergeSlice(ctx, originalList, patchList, listItemSchema(ctx.defs, meta.schema), mergeKey, false, depth));
      } else {
        merged = patchList;
        serverView = originalList;
      }
    } else {
      continue;
    }

    const [patchItems, serverOnly] = mergeKey === ''
      ? partitionScalarsByPresence(merged, order)
      : partitionMapsByPresence(merged, order, mergeKey);
    const kind = sliceElementKind(originalList, patchList);
    setMember(original, field, normalizeElementOrder(patchItems, serverOnly, order, serverView, mergeKey, kind));
    delete patch[field];
  }
}

/** The patch's items (deletions aside) must appear in the same relative order in `$setElementOrder`. */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const [kept] = mergeKey === '' ? [patchList] : splitDeletions(patchList);
  let patchIndex = 0;
  let orderIndex = 0;
  while (patchIndex < kept.length && orderIndex < order.length) {
    const item = kept[patchIndex];
    if (isObject(item) && hasMember(item, directiveMarker)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[orderIndex], mergeKey)) patchIndex++;
    orderIndex++;
  }
  if (patchIndex < kept.length && orderIndex >= order.length) {
    throw unclassified(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goValue(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isObject(left)) throw errBadArgType('map[string]interface {}', left);
  if (!isObject(right)) throw errBadArgType('map[string]interface {}', right);
  if (!hasMember(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasMember(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

// ---- lists ----

interface SliceMerge {
  merged: unknown[];
  /**
   * What the original list reads as afterwards, through the caller's reference: in Go,
   * deleting items shifts the rest left inside the original backing array and items
   * appended after that land in the freed slots, so the $setElementOrder pass sees the
   * survivors followed by as many appended items as there were deletions. (The slots
   * past those hold stale duplicates, which an index lookup never reaches first.)
   */
  serverView: unknown[];
}

function mergeSlice(
  ctx: MergeContext,
  original: unknown[],
  patch: unknown[],
  itemSchema: Schema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  depth: number,
): SliceMerge {
  if (original.length === 0 && patch.length === 0) return { merged: original, serverView: original };
  const kind = sliceElementKind(original, patch);

  if (kind !== 'map') {
    if (isDeleteList) return { merged: deleteFromSlice(original, patch), serverView: original };
    const merged = [...new Set([...original, ...patch])];
    const [patchItems, serverOnly] = mergeKey === ''
      ? partitionScalarsByPresence(merged, patch)
      : partitionMapsByPresence(merged, patch, mergeKey);
    return { merged: normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind), serverView: original };
  }

  if (mergeKey === '') throw unclassified(`cannot merge lists without merge key for ${schemaKind(itemSchema)}`);
  const special = applyListDirectives(original, patch, mergeKey);
  const merged = mergeListItems(ctx, special.list, special.patch, mergeKey, itemSchema, depth);
  const appended = merged.slice(special.list.length);
  const serverView = special.replaced ? special.survivors : [...special.survivors, ...appended].slice(0, original.length);
  const [patchItems, serverOnly] = partitionMapsByPresence(merged, special.patch, mergeKey);
  return { merged: normalizeElementOrder(patchItems, serverOnly, special.patch, special.list, mergeKey, kind), serverView };
}

interface ListDirectives {
  /** The list to merge into: the original without deleted items, or the patch's items for `$patch: replace`. */
  list: unknown[];
  /** The patch's items without directives (none after `$patch: replace`). */
  patch: unknown[];
  replaced: boolean;
  /** The original without deleted items. */
  survivors: unknown[];
}

/** `$patch` items in a list of maps (upstream's mergeSliceWithSpecialElements). */
function applyListDirectives(original: unknown[], patch: unknown[], mergeKey: string): ListDirectives {
  const plain: unknown[] = [];
  const deleted = new Set<unknown>();
  let replaced = false;
  for (const entry of patch) {
    const item = entry as JsonObject;
    if (!hasMember(item, directiveMarker)) {
      plain.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === deleteDirective) {
      if (!hasMember(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      deleted.add(item[mergeKey]);
    } else if (directive === replaceDirective) {
      replaced = true;
    } else if (directive === mergeDirective) {
      throw unclassified('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, item);
    }
  }
  const survivors = deleted.size === 0
    ? original
    : original.filter((entry) => !(hasMember(entry as JsonObject, mergeKey) && deleted.has((entry as JsonObject)[mergeKey])));
  return replaced
    ? { list: plain, patch: [], replaced, survivors }
    : { list: survivors, patch: plain, replaced, survivors };
}

/** Merges each patch item into the first item with its merge key, or appends it. */
function mergeListItems(ctx: MergeContext, list: unknown[], patch: unknown[], mergeKey: string, itemSchema: Schema | undefined, depth: number): unknown[] {
  const result = [...list];
  const positions = new Map<unknown, number>();
  result.forEach((entry, i) => {
    const item = entry as JsonObject;
    if (hasMember(item, mergeKey) && !positions.has(item[mergeKey])) positions.set(item[mergeKey], i);
  });
  for (const entry of patch) {
    const item = entry as JsonObject;
    if (!hasMember(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const at = positions.get(item[mergeKey]);
    if (at === undefined) {
      positions.set(item[mergeKey], result.length);
      result.push(item);
    } else {
      result[at] = mergeMap(ctx, result[at] as JsonObject, item, itemSchema, depth + 1);
    }
  }
  return result;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const deleted = new Set(toDelete);
  return current.filter((item) => !deleted.has(item));
}

function partitionScalarsByPresence(items: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const present = new Set(by);
  const inside: unknown[] = [];
  const outside: unknown[] = [];
  for (const item of items) (present.has(item) ? inside : outside).push(item);
  return [inside, outside];
}

function partitionMapsByPresence(items: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const lookup = mapLookup(by, mergeKey);
  const inside: unknown[] = [];
  const outside: unknown[] = [];
  for (const item of items) {
    if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
    if (!hasMember(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    (lookup(item[mergeKey]) ? inside : outside).push(item);
  }
  return [inside, outside];
}

/**
 * Whether a list of maps has an item with merge key value `value`, failing like
 * upstream's findMapInSliceBasedOnKeyValue when a non-map comes before the match.
 */
function mapLookup(list: unknown[], mergeKey: string): (value: unknown) => boolean {
  const first = new Map<unknown, number>();
  let firstNonMap = -1;
  list.forEach((entry, i) => {
    if (!isObject(entry)) {
      if (firstNonMap < 0) firstNonMap = i;
    } else if (hasMember(entry, mergeKey) && !first.has(entry[mergeKey])) {
      first.set(entry[mergeKey], i);
    }
  });
  return (value) => {
    const at = first.get(value);
    if (firstNonMap >= 0 && (at === undefined || firstNonMap < at)) throw unclassified(`value for key ${firstNonMap} is not a map`);
    return at !== undefined;
  };
}

// ---- order ----

/**
 * The position of items in `list`: by merge key value for maps (a missing key reads as
 * null), by value for scalars; -1 when absent.
 */
function indexer(list: unknown[], mergeKey: string, kind: Kind): (item: unknown) => number {
  const valueOf = kind === 'map'
    ? (item: unknown) => (isObject(item) && hasMember(item, mergeKey) ? item[mergeKey] : null)
    : (item: unknown) => item;
  const first = new Map<unknown, number>();
  list.forEach((item, i) => {
    const value = valueOf(item);
    if (!first.has(value)) first.set(value, i);
  });
  return (item) => first.get(valueOf(item)) ?? -1;
}

/**
 * Sorts the patch's items by `patchOrder` and the server-only items by `serverOrder`,
 * then interleaves them (upstream's normalizeElementOrder).
 */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: Kind,
): unknown[] {
  const sortedPatch = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const sortedServer = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(sortedServer, sortedPatch, serverOrder, mergeKey, kind);
}

function normalizeSliceOrder(items: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let sorted = items;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, items, order);
    [sorted, deletions] = splitDeletions(items);
  } else {
    sorted = [...items];
  }
  const position = indexer(order, mergeKey, kind);
  goSliceStable(sorted, (a, b) => {
    const ia = position(a);
    if (ia >= 0) {
      const ib = position(b);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...sorted, ...deletions];
}

function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
      if (!hasMember(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Items without `$patch: delete`, and those with it. */
function splitDeletions(items: unknown[]): [unknown[], unknown[]] {
  const kept: unknown[] = [];
  const deletions: unknown[] = [];
  for (const item of items) {
    if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
    (item[directiveMarker] === deleteDirective ? deletions : kept).push(item);
  }
  return [kept, deletions];
}

/**
 * Interleaves two sorted lists: a server-only item goes first only when the server's
 * order puts it before the next patch item (so items new to the server come as early
 * as they can).
 */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind): unknown[] {
  const position = indexer(serverOrder, mergeKey, kind);
  const result: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) result.push(right[j++]);
    else if (j >= right.length) result.push(left[i++]);
    else {
      const li = position(left[i]);
      const ri = position(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) result.push(left[i++]);
      else result.push(right[j++]);
    }
  }
  return result;
}
