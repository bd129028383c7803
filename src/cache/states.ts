// Object states and events as the watch cache keeps them: each event's bytes once,
// as the line of the JSON watch stream that watchers are sent, with the object's
// JSON a view into that line; and the decoded form only while something uses it.
// The current objects hold theirs; a superseded state (kept in the event history
// for watches and list snapshots at past revisions) lets it go and decodes its
// JSON again on demand. The history then costs about its bytes, not a decoded copy
// of every object version in the window.

import type { KubeObject } from '../api/index.ts';
import { decodedForm, freezeDeep } from './encode.ts';
import { metadataViewOf, metadataViewOfObject } from './metadata-view.ts';
import type { CacheEvent, CachedObject } from './types.ts';

type EventType = CacheEvent['type'];

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const framePrefixes: Record<EventType | 'ERROR', Uint8Array> = {
  ADDED: encoder.encode('{"type":"ADDED","object":'),
  MODIFIED: encoder.encode('{"type":"MODIFIED","object":'),
  DELETED: encoder.encode('{"type":"DELETED","object":'),
  BOOKMARK: encoder.encode('{"type":"BOOKMARK","object":'),
  ERROR: encoder.encode('{"type":"ERROR","object":'),
};
const frameEnd = encoder.encode('}\n');

/** A watch event as a line of the JSON watch stream, and the object's JSON as a view into it. */
export function watchFrame(type: EventType | 'ERROR', json: Uint8Array): { frame: Uint8Array; json: Uint8Array } {
  const prefix = framePrefixes[type];
  const frame = Buffer.allocUnsafeSlow(prefix.length + json.length + frameEnd.length);
  frame.set(prefix, 0);
  frame.set(json, prefix.length);
  frame.set(frameEnd, prefix.length + json.length);
  return { frame, json: frame.subarray(prefix.length, prefix.length + json.length) };
}

/** Like watchFrame, for an object not yet encoded: its JSON is written straight into the line. */
function watchFrameOf(type: EventType, object: KubeObject): { frame: Uint8Array; json: Uint8Array } {
  const text = JSON.stringify(object);
  const prefix = framePrefixes[type];
  const length = Buffer.byteLength(text);
  const frame = Buffer.allocUnsafeSlow(prefix.length + length + frameEnd.length);
  frame.set(prefix, 0);
  encoder.encodeInto(text, frame.subarray(prefix.length, prefix.length + length));
  frame.set(frameEnd, prefix.length + length);
  return { frame, json: frame.subarray(prefix.length, prefix.length + length) };
}

/**
 * Superseded states keep their bytes in shared slabs rather than one buffer each. Each
 * buffer costs the allocator ~0.25 KiB of its own bookkeeping and leaves holes among the
 * requests' short-lived buffers as the window moves on; a superseded state lives as long
 * as the event window keeps it, so the states copied in one after another leave it in
 * about that order too, and a slab is freed with the last of them. One object updated
 * 20,000 times: RSS per update 3.0–3.2 → 2.5–2.9 KiB for a 1.4 KiB object, 13.5–14.0 →
 * 12.3–12.6 KiB for a 10.4 KiB one. A current state keeps its own buffer: it may stay for
 * ever, and would keep a slab with it.
 */
const slabBytes = 256 * 1024;
/** Lines longer than this keep their own buffer (a slab holds at least eight). */
const slabbedAtMost = slabBytes / 8;
let slab = Buffer.allocUnsafeSlow(0);
let slabUsed = 0;

/** A copy of `bytes` in the slab being filled (a Buffer, as the lines are), or `bytes` itself when too long. */
function windowCopy(bytes: Uint8Array): Uint8Array {
  if (bytes.length > slabbedAtMost) return bytes;
  const at = slabCopy(bytes);
  return slab.subarray(at, at + bytes.length);
}

/** Copies `bytes` (at most slabbedAtMost) into the slab being filled, which `slab` is afterwards; answers where. */
function slabCopy(bytes: Uint8Array): number {
  if (slabUsed + bytes.length > slab.length) {
    slab = Buffer.allocUnsafeSlow(slabBytes);
    slabUsed = 0;
  }
  const at = slabUsed;
  slab.set(bytes, at);
  slabUsed += bytes.length;
  return at;
}

/**
 * A cached object: its JSON always, its decoded form while someone uses it. In a freezing
 * cache the decoded form is held weakly (a WeakRef): the collector drops it once no
 * reader, write or informer holds it, and the next reader decodes the JSON again. So a
 * cache of objects nobody reads as objects (most of them: gets and lists are answered
 * from the JSON) costs its bytes, not also their decoded forms, which take 2–4 times as
 * much heap. A cache that does not freeze hands out objects its readers may change, so
 * it holds them while they are current, and weakly once released. A state made from its
 * JSON alone decodes it when first asked.
 */
export class CachedState implements CachedObject {
  readonly key: string;
  readonly revision: number;
  /** The JSON; undefined once superseded with a line, whose view it then is (see json). */
  #json: Uint8Array | undefined;
  /**
   * The watch event's line the JSON is a view into, when the state came with one (see
   * stateWithEvent); once superseded, the slab holding it (from #lineAt on).
   */
  #line: Uint8Array | undefined;
  /** Where the line starts in the slab #line then is; -1 while #line is the line itself. */
  #lineAt = -1;
  /** The view of the line in its slab, once asked for after the state was superseded. */
  #lineView: Uint8Array | undefined;
  /** Where the JSON is in the line: kept rather than a view, once superseded (a view costs ~0.1 KiB a state in the window). */
  #jsonAt = 0;
  #jsonLength = 0;
  readonly #freeze: boolean;
  #held: KubeObject | undefined;
  #weak: WeakRef<KubeObject> | undefined;
  #released = false;
  /** The metadata view, kept while the state is current. */
  #view: KubeObject | undefined;
  /** Made from JSON alone: its Store's encoding, JSON.stringify's, in which no key repeats. */
  readonly #jsonOnly: boolean;
  /** Other encodings, by name; most states never need one. */
  #encodings: Map<string, Uint8Array> | undefined;
  /**
   * The object given to the constructor is held but not frozen yet: it is frozen when first
   * handed out. Most objects a cache decodes (all of them when it loads) are collected
   * before anyone asks for them, and freezing each would have been a walk for nothing.
   * Until handed out, nothing else holds it (the cache decoded it for this state).
   */
  #thawed = false;

  constructor(key: string, json: Uint8Array, revision: number, object: KubeObject | undefined, freeze: boolean, line?: Uint8Array) {
    this.key = key;
    this.#json = json;
    this.#line = line;
    this.revision = revision;
    this.#freeze = freeze;
    this.#jsonOnly = object === undefined;
    if (object !== undefined) {
      this.#thawed = freeze;
      this.#hold(object);
    }
  }

  /** Keeps the decoded form: weakly when frozen or released (see the class), else strongly. */
  #hold(object: KubeObject): void {
    if (this.#freeze || this.#released) this.#weak = new WeakRef(object);
    else this.#held = object;
  }

  /** Decoded, with metadata.resourceVersion set; frozen unless the cache was told not to freeze. */
  get object(): KubeObject {
    const known = this.#held ?? this.#weak?.deref();
    if (known !== undefined) {
      if (this.#thawed) {
        freezeDeep(known);
        this.#thawed = false;
      }
      return known;
    }
    // The JSON is what clients are sent for this state: decoding it gives the object they see.
    const object = JSON.parse(decoder.decode(this.json)) as KubeObject;
    if (this.#freeze) freezeDeep(object);
    this.#hold(object);
    return object;
  }

  /**
   * The object its writer made, which encoded to this state's JSON: `object` then need not
   * decode the JSON. Taken only by a cache that freezes, while the state is current and
   * not decoded yet. The cache keeps it in its decoded form (encode.ts decodedForm), which
   * shares what is below the top level and metadata with the writer.
   */
  adopt(object: KubeObject): boolean {
    if (object.metadata?.resourceVersion !== String(this.revision)) return false;
    return this.adoptEncoded(object);
  }

  /**
   * As adopt, for the object the state's JSON was encoded from, taken when its event
   * arrives: its writer has not set the resourceVersion yet, so the state's is used.
   */
  adoptEncoded(object: KubeObject): boolean {
    if (!this.#freeze || !this.#jsonOnly || this.#released || this.#held !== undefined || this.#weak?.deref() !== undefined) return false;
    this.#hold(decodedForm(object, this.revision));
    return true;
  }

  /**
   * The metadata view made from the object the state's JSON was encoded from, by a thread
   * that had it (metadata-view.ts metadataViewJson: no resourceVersion, which is the
   * state's): taken while the state is current, JSON only and has no view yet.
   */
  adoptMetadataView(viewJson: string): boolean {
    if (!this.#jsonOnly || this.#released || this.#view !== undefined) return false;
    const view = JSON.parse(viewJson) as KubeObject;
    view.metadata.resourceVersion = String(this.revision);
    if (this.#freeze) freezeDeep(view);
    this.#view = view;
    return true;
  }

  /** The metadata view when the state holds one (while current, once made), without making it. */
  get heldMetadataView(): KubeObject | undefined {
    return this.#view;
  }

  /**
   * kind, apiVersion and metadata without managedFields, frozen like `object`: from the
   * decoded object when there is one, else read from the JSON without decoding the rest.
   */
  get metadataView(): KubeObject {
    if (this.#view !== undefined) return this.#view;
    const known = this.#held ?? this.#weak?.deref();
    const view = (known === undefined ? metadataViewOf(this.json, { uniqueKeys: this.#jsonOnly }) : undefined) ?? metadataViewOfObject(known ?? this.object);
    if (this.#freeze) freezeDeep(view);
    if (!this.#released) this.#view = view;
    return view;
  }

  encoded(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array {
    let bytes = this.#encodings?.get(name);
    if (bytes === undefined) {
      bytes = encode(this.object);
      (this.#encodings ??= new Map()).set(name, bytes);
    }
    return bytes;
  }

  /** The object as JSON, resourceVersion included: what gets, lists and watches send of it. */
  get json(): Uint8Array {
    if (this.#json !== undefined) return this.#json;
    const at = Math.max(this.#lineAt, 0) + this.#jsonAt;
    return this.#line!.subarray(at, at + this.#jsonLength);
  }

  /** The event line announcing the state, which holds its JSON; undefined for a state made without one. */
  get line(): Uint8Array | undefined {
    const line = this.#line;
    if (line === undefined || this.#lineAt < 0) return line;
    // A superseded state that nobody read holds no view object of its own (~0.1 KiB each, in a window of thousands).
    return (this.#lineView ??= line.subarray(this.#lineAt, this.#lineAt + this.#jsonAt + this.#jsonLength + frameEnd.length));
  }

  /**
   * The state stopped being current: keep its decoded form only while others still use it,
   * and its bytes in the window's shared slabs (see windowCopy).
   */
  release(): void {
    if (this.#released) return;
    const line = this.#line;
    const json = this.#json!;
    if (line === undefined) {
      this.#json = windowCopy(json);
    } else {
      this.#jsonAt = json.byteOffset - line.byteOffset;
      this.#jsonLength = json.byteLength;
      // Lines are frames (watchFrame): the JSON, then frameEnd; the line's length follows from the JSON's.
      if (line.length > slabbedAtMost || line.length !== this.#jsonAt + this.#jsonLength + frameEnd.length) {
        this.#line = line;
      } else {
        this.#lineAt = slabCopy(line);
        this.#line = slab;
      }
      this.#json = undefined;
    }
    this.#released = true;
    this.#view = undefined;
    const held = this.#held;
    if (held === undefined) return;
    this.#weak = new WeakRef(held);
    this.#held = undefined;
  }
}

/**
 * An event of the cache: its frame is what a watch stream writes, its object that of a
 * state. The event that made a state shares its line (wherever the state keeps it);
 * others (another type for the same state) have a line of their own.
 */
export class StateEvent implements CacheEvent {
  readonly type: EventType;
  readonly revision: number;
  readonly #state: CachedObject;
  readonly #own: { frame: Uint8Array; json: Uint8Array } | undefined;

  constructor(type: EventType, state: CachedObject, revision: number, own?: { frame: Uint8Array; json: Uint8Array }) {
    this.type = type;
    this.#state = state;
    this.revision = revision;
    this.#own = own;
  }

  get json(): Uint8Array {
    return this.#own?.json ?? this.#state.json;
  }

  get frame(): Uint8Array {
    return this.#own?.frame ?? (this.#state as CachedState).line!;
  }

  get object(): KubeObject {
    return this.#state.object;
  }

  get metadataView(): KubeObject {
    return this.#state.metadataView;
  }

  encoded(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array {
    return this.#state.encoded(name, encode);
  }
}

/** A new current state and the event announcing it: one allocation holds the frame and the object's JSON. */
export function stateWithEvent(
  type: 'ADDED' | 'MODIFIED', key: string, object: KubeObject | undefined, json: Uint8Array | undefined, revision: number, eventRevision: number, freeze: boolean,
): { state: CachedState; event: StateEvent } {
  if (object === undefined && json === undefined) throw new Error('a cached state needs its object or its JSON');
  const framed = json === undefined ? watchFrameOf(type, object!) : watchFrame(type, json);
  const state = new CachedState(key, framed.json, revision, object, freeze, framed.frame);
  return { state, event: new StateEvent(type, state, eventRevision) };
}

/** An event for an existing state under another type (a watcher's predicate made it ADDED): a frame of its own. */
export function eventAs(type: EventType, state: CachedObject, revision: number): StateEvent {
  return new StateEvent(type, state, revision, watchFrame(type, state.json));
}

/**
 * A DELETED event: the last state with resourceVersion set to the deletion's revision, as
 * upstream. Made when first read: most deletions are read in that form by no one (the
 * in-process informers read the metadata view; a type may have no HTTP watchers), and
 * until then the event holds no bytes of its own, only the last state, whose bytes the
 * window keeps anyway. A deletion then costs neither a decode and an encode of the object
 * nor a second copy of its bytes.
 */
export class DeletedEvent implements CacheEvent {
  readonly type = 'DELETED';
  readonly revision: number;
  readonly #last: CachedObject;
  readonly #freeze: boolean;
  #made: StateEvent | undefined;
  /** Held weakly: the window keeps deletions for minutes, and a view's strings cost more than the bytes they come from. */
  #view: WeakRef<KubeObject> | undefined;

  constructor(last: CachedObject, revision: number, freeze: boolean) {
    this.#last = last;
    this.revision = revision;
    this.#freeze = freeze;
    // The view the last state holds, while it still does, makes this event's at once: the
    // in-process informers read it a turn later, when the state has let its view go, and
    // reading that again from the JSON costs more than this copy.
    const held = last instanceof CachedState ? last.heldMetadataView : undefined;
    if (held !== undefined) this.#view = new WeakRef(this.#viewOf(held));
  }

  /** About the bytes of its JSON, known without making it (the last state's), and the same before and after. */
  get size(): number {
    return this.#last.json.byteLength;
  }

  get object(): KubeObject {
    return this.#event().object;
  }

  get json(): Uint8Array {
    return this.#event().json;
  }

  get frame(): Uint8Array {
    return this.#event().frame;
  }

  /** The last state's view with the deletion's resourceVersion: nothing decoded. */
  get metadataView(): KubeObject {
    if (this.#made !== undefined) return this.#made.metadataView;
    const known = this.#view?.deref();
    if (known !== undefined) return known;
    const view = this.#viewOf(this.#last.metadataView);
    this.#view = new WeakRef(view);
    return view;
  }

  /** The last state's view with the deletion's resourceVersion. */
  #viewOf(last: KubeObject): KubeObject {
    const view: KubeObject = { ...last, metadata: { ...last.metadata, resourceVersion: String(this.revision) } };
    if (this.#freeze) freezeDeep(view);
    return view;
  }

  encoded(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array {
    return this.#event().encoded(name, encode);
  }

  #event(): StateEvent {
    if (this.#made === undefined) {
      const lastObject = this.#last.object;
      const object: KubeObject = { ...lastObject, metadata: { ...lastObject.metadata, resourceVersion: String(this.revision) } };
      const framed = watchFrameOf('DELETED', object);
      const state = new CachedState(this.#last.key, framed.json, this.revision, object, this.#freeze, framed.frame);
      state.release();
      this.#made = new StateEvent('DELETED', state, this.revision);
    }
    return this.#made;
  }
}

export function deletedEvent(last: CachedObject, revision: number, freeze: boolean): DeletedEvent {
  return new DeletedEvent(last, revision, freeze);
}

/** A BOOKMARK (or any event not about a cached state), framed once for every watcher it goes to. */
export function plainEvent(type: EventType, object: KubeObject, revision: number, freeze: boolean): CacheEvent {
  const framed = watchFrameOf(type, object);
  if (freeze) freezeDeep(object);
  return Object.freeze({ type, object, json: framed.json, frame: framed.frame, revision });
}
