// A set of field paths, as structured-merge-diff's fieldpath.Set: a trie whose nodes hold
// the path elements that are themselves members and the children that have members below
// them. Being a child does not make an element a member: `{f:metadata: {f:labels: {f:app}}}`
// holds only `.metadata.labels.app`.
//
// A set read from FieldsV1 (`FieldSet.fromFieldsV1`) decodes each level the first time an
// operation looks at it, and encodes back to the very objects it was read from while
// unchanged: an apply touches the few fields it changes, not every manager's whole set.
//
// Sets returned by the operations share nodes with their operands: treat every set as
// immutable once built. Only the builder methods (`insert`, `addMember`, `descend`,
// `attach`) mutate, for building a new set.

import { isObject } from '../api/json.ts';
import type { Path, PathElement } from './field-path.ts';
import { canonicalElement, sortPathElements } from './field-path.ts';

type Raw = Record<string, unknown>;

/** FieldsV1 that does not decode: an element that is not one, or an entry that is not an object. */
export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldsV1Error';
  }
}

function elementOf(key: string): PathElement | undefined {
  try {
    return canonicalElement(key);
  } catch (err) {
    throw new FieldsV1Error(`parsing key as path element: ${(err as Error).message}`);
  }
}

export class FieldSet {
  #members: Set<PathElement> | undefined;
  #children: Map<PathElement, FieldSet> | undefined;
  /** The FieldsV1 level this node has not decoded yet. */
  #raw: Raw | undefined;
  /** The FieldsV1 level this node was decoded from, while its keys were canonical and it is unchanged. */
  #source: Raw | undefined;
  /** Memoized encodings (0: without ".", 1: with it); see encodeFieldsV1. */
  #encoded: [object | undefined, object | undefined] | undefined;
  /**
   * Known to hold a member somewhere below. The operations ask each operand and result
   * whether it is empty at every level they descend, which walked down to a member each
   * time; a set only grows while built, so once found it stays true.
   */
  #nonEmpty = false;

  constructor(members?: Set<PathElement>, children?: Map<PathElement, FieldSet>) {
    this.#members = members !== undefined && members.size > 0 ? members : undefined;
    this.#children = children !== undefined && children.size > 0 ? children : undefined;
  }

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /**
   * A set over a FieldsV1 object, decoded lazily. Malformed elements throw when the level
   * holding them is first read.
   */
  static fromFieldsV1(raw: Raw): FieldSet {
    const set = new FieldSet();
    set.#raw = raw;
    set.#source = raw;
    return set;
  }

  #open(): void {
    const raw = this.#raw;
    if (raw === undefined) return;
    this.#raw = undefined;
    let members: Set<PathElement> | undefined;
    let children: Map<PathElement, FieldSet> | undefined;
    for (const key in raw) {
      if (key === '.') continue;
      const pe = elementOf(key);
      if (pe === undefined) {
        this.#source = undefined;
        continue;
      }
      if (pe !== key) this.#source = undefined;
      const value = raw[key];
      if (!isObject(value)) {
        throw new FieldsV1Error(`fieldsV1 entry ${JSON.stringify(key)} must be an object`);
      }
      const obj = value as Raw;
      let nested = false;
      for (const k in obj) {
        if (k !== '.') {
          nested = true;
          break;
        }
      }
      if (!nested || '.' in obj) (members ??= new Set()).add(pe);
      if (nested) {
        children ??= new Map();
        const existing = children.get(pe);
        const child = FieldSet.fromFieldsV1(obj);
        if (existing !== undefined) {
          this.#source = undefined;
          children.set(pe, existing.union(child));
        } else {
          children.set(pe, child);
        }
      }
    }
    this.#members = members;
    this.#children = children;
  }

  #changed(): void {
    if (this === EMPTY) throw new Error('the shared empty FieldSet cannot be built on');
    this.#open();
    this.#source = undefined;
    this.#encoded = undefined;
  }

  /** The FieldsV1 object this set was read from, when unchanged and canonical at this level (for encodeFieldsV1). */
  sourceFieldsV1(): Raw | undefined {
    return this.#source;
  }

  /** Memo slot for encodeFieldsV1. */
  encodedAs(slot: 0 | 1): object | undefined {
    return this.#encoded?.[slot];
  }

  rememberEncoding(slot: 0 | 1, encoded: object): void {
    (this.#encoded ??= [undefined, undefined])[slot] = encoded;
  }

  /** Adds `path` (not its parents). The empty path stands for the whole object, which nobody owns. */
  insert(path: Path): this {
    if (path.length === 0) return this;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]!);
    node.addMember(path[path.length - 1]!);
    return this;
  }

  /** Adds `pe` as a member of this level (builder). */
  addMember(pe: PathElement): void {
    this.#changed();
    (this.#members ??= new Set()).add(pe);
  }

  /** The child set under `pe`, created if absent (builder). */
  descend(pe: PathElement): FieldSet {
    this.#changed();
    this.#children ??= new Map();
    let child = this.#children.get(pe);
    if (child === undefined) {
      child = new FieldSet();
      this.#children.set(pe, child);
    }
    return child;
  }

  /** Attaches a built subset under `pe` unless it is empty (builder). */
  attach(pe: PathElement, child: FieldSet): void {
    if (child.isEmpty()) return;
    this.#changed();
    const existing = this.#children?.get(pe);
    (this.#children ??= new Map()).set(pe, existing === undefined ? child : existing.union(child));
  }

  isEmpty(): boolean {
    if (this.#nonEmpty) return false;
    this.#open();
    if (this.#members !== undefined && this.#members.size > 0) {
      this.#nonEmpty = true;
      return false;
    }
    if (this.#children === undefined) return true;
    for (const child of this.#children.values()) {
      if (!child.isEmpty()) {
        this.#nonEmpty = true;
        return false;
      }
    }
    return true;
  }

  hasMember(pe: PathElement): boolean {
    this.#open();
    return this.#members !== undefined && this.#members.has(pe);
  }

  child(pe: PathElement): FieldSet | undefined {
    this.#open();
    return this.#children?.get(pe);
  }

  /**
   * This level's elements as FieldsV1 writes them (unsorted): its children's, then the
   * members that have no child. Filled here, where the Set and Map are of one kind each:
   * iterated through a generic Iterable, every step allocated its result.
   */
  levelElements(): PathElement[] {
    this.#open();
    const children = this.#children;
    const members = this.#members;
    // Sized up front: an array grown by push starts at 16 slots, most levels hold one to three.
    const out = new Array<PathElement>((children?.size ?? 0) + (members?.size ?? 0));
    let n = 0;
    if (children !== undefined) for (const pe of children.keys()) out[n++] = pe;
    if (members !== undefined) for (const pe of members) if (children === undefined || !children.has(pe)) out[n++] = pe;
    out.length = n;
    return out;
  }

  /** Whether `path` is a member. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      node = node.child(path[i]!);
      if (node === undefined) return false;
    }
    return node.hasMember(path[path.length - 1]!);
  }

  /** The subset below `pe`, without the prefix. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? EMPTY;
  }

  union(other: FieldSet): FieldSet {
    if (other === this || other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    let members = this.#members;
    const theirMembers = other.#members;
    if (theirMembers !== undefined) {
      if (members === undefined) members = theirMembers;
      else {
        let grown: Set<PathElement> | undefined;
        for (const pe of theirMembers) {
          if (!members.has(pe)) (grown ??= new Set(members)).add(pe);
        }
        if (grown !== undefined) members = grown;
      }
    }
    let children = this.#children;
    const theirChildren = other.#children;
    let childrenChanged = false;
    if (theirChildren !== undefined) {
      if (children === undefined) {
        children = theirChildren;
        childrenChanged = true;
      } else {
        let grown: Map<PathElement, FieldSet> | undefined;
        for (const [pe, sub] of theirChildren) {
          const mine = (grown ?? children).get(pe);
          const next = mine === undefined ? sub : mine.union(sub);
          if (next !== mine) (grown ??= copyOf(children)).set(pe, next);
        }
        if (grown !== undefined) {
          children = grown;
          childrenChanged = true;
        }
      }
    }
    if (members === this.#members && !childrenChanged) return this;
    return new FieldSet(members, children);
  }

  /**
   * Members of this set that are not members of `other`. As in structured-merge-diff, a
   * member is removed only by the same member: `parent - child = parent`, and a child
   * stays when only its parent is removed (see recursiveDifference for that).
   */
  difference(other: FieldSet): FieldSet {
    if (other === this) return EMPTY;
    if (other.isEmpty() || this.isEmpty()) return this;
    const members = subtractMembers(this.#members, other.#members);
    let children = this.#children;
    const theirs = other.#children;
    if (children !== undefined && theirs !== undefined) {
      let out: Map<PathElement, FieldSet> | undefined;
      // The elements of the smaller map, looked up in both (no closure, no entry arrays).
      for (const pe of (theirs.size < children.size ? theirs : children).keys()) {
        const sub = children.get(pe);
        const their = theirs.get(pe);
        if (sub === undefined || their === undefined) continue;
        const diff = sub.difference(their);
        if (diff === sub) continue;
        out ??= copyOf(children);
        if (diff.isEmpty()) out.delete(pe);
        else out.set(pe, diff);
      }
      if (out !== undefined) children = out;
    }
    if (members === this.#members && children === this.#children) return this;
    return new FieldSet(members, children);
  }

  /** Removes every member of `other` together with everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const theirMembers = other.#members;
    const members = subtractMembers(this.#members, theirMembers);
    let children = this.#children;
    if (children !== undefined) {
      let out: Map<PathElement, FieldSet> | undefined;
      for (const [pe, sub] of children) {
        let next: FieldSet;
        if (theirMembers !== undefined && theirMembers.has(pe)) next = EMPTY;
        else {
          const their = other.#children?.get(pe);
          if (their === undefined) continue;
          next = sub.recursiveDifference(their);
        }
        if (next === sub) continue;
        out ??= copyOf(children);
        if (next.isEmpty()) out.delete(pe);
        else out.set(pe, next);
      }
      if (out !== undefined) children = out;
    }
    if (members === this.#members && children === this.#children) return this;
    return new FieldSet(members, children);
  }

  intersection(other: FieldSet): FieldSet {
    if (other === this) return this;
    if (this.isEmpty() || other.isEmpty()) return EMPTY;
    // Walked without pairs or entry arrays: this runs at every level of every owner's set.
    let members: Set<PathElement> | undefined;
    const m1 = this.#members;
    const m2 = other.#members;
    if (m1 !== undefined && m2 !== undefined) {
      const small = m1.size <= m2.size ? m1 : m2;
      const large = small === m1 ? m2 : m1;
      for (const pe of small) if (large.has(pe)) (members ??= new Set()).add(pe);
    }
    let children: Map<PathElement, FieldSet> | undefined;
    const c1 = this.#children;
    const c2 = other.#children;
    if (c1 !== undefined && c2 !== undefined) {
      const small = c1.size <= c2.size ? c1 : c2;
      const large = small === c1 ? c2 : c1;
      for (const pe of small.keys()) {
        const theirs = large.get(pe);
        if (theirs === undefined) continue;
        const both = small.get(pe)!.intersection(theirs);
        if (!both.isEmpty()) (children ??= new Map()).set(pe, both);
      }
    }
    return members === undefined && children === undefined ? EMPTY : new FieldSet(members, children);
  }

  /** Whether a member of this set is a member of `other` (intersection(other) is not empty), without building the intersection. */
  intersects(other: FieldSet): boolean {
    if (other === this) return !this.isEmpty();
    this.#open();
    other.#open();
    const m1 = this.#members;
    const m2 = other.#members;
    if (m1 !== undefined && m2 !== undefined) {
      const small = m1.size <= m2.size ? m1 : m2;
      const large = small === m1 ? m2 : m1;
      for (const pe of small) if (large.has(pe)) return true;
    }
    const c1 = this.#children;
    const c2 = other.#children;
    if (c1 === undefined || c2 === undefined) return false;
    const small = c1.size <= c2.size ? c1 : c2;
    const large = small === c1 ? c2 : c1;
    for (const pe of small.keys()) {
      const theirs = large.get(pe);
      if (theirs !== undefined && small.get(pe)!.intersects(theirs)) return true;
    }
    return false;
  }

  /** Only the members with no members below them. */
  leaves(): FieldSet {
    this.#open();
    let members: Set<PathElement> | undefined;
    if (this.#members !== undefined) {
      for (const pe of this.#members) {
        const sub = this.#children?.get(pe);
        if (sub === undefined || sub.isEmpty()) (members ??= new Set()).add(pe);
      }
    }
    let children: Map<PathElement, FieldSet> | undefined;
    if (this.#children !== undefined) {
      for (const [pe, sub] of this.#children) {
        const leaves = sub.leaves();
        if (!leaves.isEmpty()) (children ??= new Map()).set(pe, leaves);
      }
    }
    return new FieldSet(members, children);
  }

  /** Whether every member of this set is a member of `other`. */
  isSubsetOf(other: FieldSet): boolean {
    if (other === this) return true;
    this.#open();
    if (this.#members !== undefined) for (const pe of this.#members) if (!other.hasMember(pe)) return false;
    if (this.#children !== undefined) {
      for (const [pe, sub] of this.#children) {
        const theirs = other.child(pe);
        if (theirs === undefined ? !sub.isEmpty() : !sub.isSubsetOf(theirs)) return false;
      }
    }
    return true;
  }

  equals(other: FieldSet): boolean {
    if (other === this) return true;
    this.#open();
    other.#open();
    const m1 = this.#members?.size ?? 0;
    const m2 = other.#members?.size ?? 0;
    if (m1 !== m2) return false;
    if (m1 > 0) for (const pe of this.#members!) if (!other.#members!.has(pe)) return false;
    const c1 = this.#children;
    const c2 = other.#children;
    let n1 = 0;
    if (c1 !== undefined) {
      for (const [pe, sub] of c1) {
        if (sub.isEmpty()) continue;
        n1++;
        const theirs = c2?.get(pe);
        if (theirs === undefined || !sub.equals(theirs)) return false;
      }
    }
    let n2 = 0;
    if (c2 !== undefined) for (const sub of c2.values()) if (!sub.isEmpty()) n2++;
    return n1 === n2;
  }

  /** Number of members at every level. */
  size(): number {
    this.#open();
    let n = this.#members?.size ?? 0;
    if (this.#children !== undefined) for (const sub of this.#children.values()) n += sub.size();
    return n;
  }

  /**
   * Every member path, in structured-merge-diff's Iterate order: at each level the
   * members (sorted), then the children's members (children sorted).
   */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    this.#collectPaths([], out);
    return out;
  }

  #collectPaths(prefix: PathElement[], out: PathElement[][]): void {
    this.#open();
    if (this.#members !== undefined) {
      for (const pe of sortPathElements([...this.#members])) out.push([...prefix, pe]);
    }
    if (this.#children !== undefined) {
      for (const pe of sortPathElements([...this.#children.keys()])) {
        prefix.push(pe);
        this.#children.get(pe)!.#collectPaths(prefix, out);
        prefix.pop();
      }
    }
  }
}

function subtractMembers(mine: Set<PathElement> | undefined, theirs: Set<PathElement> | undefined): Set<PathElement> | undefined {
  if (mine === undefined || theirs === undefined) return mine;
  let kept: Set<PathElement> | undefined;
  let removed = false;
  if (theirs.size < mine.size) {
    for (const pe of theirs) {
      if (!mine.has(pe)) continue;
      if (!removed) {
        kept = new Set(mine);
        removed = true;
      }
      kept!.delete(pe);
    }
    return removed ? (kept!.size > 0 ? kept : undefined) : mine;
  }
  for (const pe of mine) {
    if (theirs.has(pe)) removed = true;
    else (kept ??= new Set()).add(pe);
  }
  return removed ? kept : mine;
}

/**
 * A set of paths given as field names, for reset fields:
 * `fieldSetOf(['status'])`, `fieldSetOf(['spec'], ['metadata', 'labels'])`.
 */
export function fieldSetOf(...paths: readonly string[][]): FieldSet {
  return FieldSet.of(...paths.map((p) => p.map((name) => 'f:' + name)));
}

/**
 * A copy of a level's children. `new Map(map)` goes through the map's entries as arrays,
 * one allocated per child (~16 KiB of an apply's garbage), and takes half as long again.
 */
function copyOf(children: Map<PathElement, FieldSet>): Map<PathElement, FieldSet> {
  const copy = new Map<PathElement, FieldSet>();
  for (const [pe, child] of children) copy.set(pe, child);
  return copy;
}

const EMPTY = new FieldSet();
