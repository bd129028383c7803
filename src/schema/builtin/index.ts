// The schemas of the built-in kinds, generated from upstream's published OpenAPI v3
// (tools/generate-api.ts writes generated/definitions.json; our descriptions come from
// tools/api-descriptions.json).

import { readFileSync } from 'node:fs';
import type { Definitions, Schema } from '../types.ts';

/** `#/components/schemas/<name>`, the form `$ref`s take inside Definitions. */
export function schemaRef(name: string): string {
  return `#/components/schemas/${name}`;
}

/**
 * Built-in definitions, keyed by upstream's names ("io.k8s.api.core.v1.Pod"), with
 * `$ref: '#/components/schemas/<name>'` between them. Shared: treat as read-only. Each is
 * parsed when first read (lazilyParsed): a server's start reads about a sixth of them.
 */
export const builtinDefinitions: Definitions = lazilyParsed(readFileSync(new URL('./generated/definitions.json', import.meta.url), 'utf8'));

/**
 * A new object with the built-in definitions, to add others to (a server's custom
 * resources'), which reads each from builtinDefinitions when first read itself.
 */
export function builtinDefinitionsCopy(): Definitions {
  const copy = lazyObject();
  for (const name of Object.keys(builtinDefinitions)) {
    lazyProperty(copy, name, () => builtinDefinitions[name]!);
  }
  return copy;
}

/**
 * An object for lazyProperty: one without a prototype, which V8 keeps as a hash table from
 * the start. One given its properties one by one keeps a shared layout, which turning a
 * property from an accessor into a value then copies whole: ~0.6 ms a definition.
 */
function lazyObject(): Definitions {
  return Object.create(null) as Definitions;
}

/** Defines `name` on `target` as `read()` on first use, then as that value (or what is assigned first). */
function lazyProperty(target: Definitions, name: string, read: () => Schema): void {
  const settle = (value: Schema) => {
    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(target, name, { get: () => settle(read()), set: settle, enumerable: true, configurable: true });
}

/**
 * generated/definitions.json, each definition parsed when first read. Parsing all of
 * them took ~17 ms and ~1.2 MB of heap at every start. The file is what
 * JSON.stringify(definitions, null, 1) writes (tools/generate-api.ts): each top-level
 * entry begins a line with one space and its quoted name, and nothing else does (deeper
 * lines have more spaces, and JSON strings hold no line breaks), so the entries are found
 * without parsing. A file laid out otherwise is parsed whole.
 */
function lazilyParsed(text: string): Definitions {
  const entry = '\n "';
  if (!text.startsWith(`{${entry}`) || !text.endsWith('\n}\n')) {
    const all = JSON.parse(text) as Definitions;
    for (const name of Object.keys(all)) withGoEncoding(name, all[name]!);
    return all;
  }
  const definitions = lazyObject();
  const end = text.length - '\n}\n'.length;
  for (let at = 1; at < end;) {
    const nameStart = at + entry.length;
    const nameEnd = text.indexOf('": ', nameStart);
    const next = text.indexOf(entry, nameEnd);
    // Each value but the last is followed by a comma.
    const valueEnd = next === -1 ? end : next - 1;
    const name = text.slice(nameStart, nameEnd);
    lazyProperty(definitions, name, () => withGoEncoding(name, JSON.parse(text.slice(nameEnd + 3, valueEnd)) as Schema));
    at = next === -1 ? end : next;
  }
  return definitions;
}

/**
 * Per built-in definition, how Go's JSON encoding treats its properties when zero or absent
 * (generated/go-encoding.json, from the Go types' Protobuf descriptors). Left out: the
 * zero value ("", 0, false) of an `omitempty` value scalar, an empty `omitempty` list or
 * map; a write's object drops them, as decoding into the Go type and encoding it again
 * does: `minReadySeconds: 0` and `nodeSelector: {}` are not stored, `spec.replicas: 0` (a
 * pointer) is. Written though absent: a value scalar without `omitempty` (`restartCount:
 * 0`), a value struct (`status: {}`, whatever omitempty says) or a type with a JSON form of
 * its own (a zero Time is `null`, a zero Quantity "0"). Custom resources' schemas are not
 * built-in definitions: nothing for them.
 */
export interface GoEncoding {
  readonly zero: ReadonlySet<string>;
  readonly emptyList: ReadonlySet<string>;
  readonly emptyMap: ReadonlySet<string>;
  /** Properties written when absent, with the JSON written (shared: copy before changing). */
  readonly written: readonly (readonly [string, unknown])[];
  /** Lists and maps without omitempty: nil once read back from upstream's Protobuf storage when empty. */
  readonly nilWhenEmpty: readonly string[];
}

const encodingBySchema = new WeakMap<Schema, GoEncoding>();
const none: ReadonlySet<string> = new Set();
type GoEncodingEntry = { zero?: string[]; emptyList?: string[]; emptyMap?: string[]; written?: Record<string, unknown>; nilWhenEmpty?: string[] };
let goEncodingEntries: Record<string, GoEncodingEntry> | undefined;

// Properties the published schema requires (Go fields without omitempty) whose absence the
// type's own validation decides: it accepts the Go zero (an iSCSI volume's lun 0, a ScaleIO
// volume without a secret reference, in a pod or a PersistentVolume) or names the field by
// another path (a GCE disk's name, as persistentDisk.pdName). The schema's `Required value`
// would be wrong there.
const decidedByValidation: Readonly<Record<string, readonly string[]>> = {
  'io.k8s.api.core.v1.ISCSIVolumeSource': ['lun'],
  'io.k8s.api.core.v1.ISCSIPersistentVolumeSource': ['lun'],
  'io.k8s.api.core.v1.ScaleIOVolumeSource': ['secretRef'],
  'io.k8s.api.core.v1.ScaleIOPersistentVolumeSource': ['secretRef'],
  'io.k8s.api.core.v1.GCEPersistentDiskVolumeSource': ['pdName'],
  // A zone hint without a name is a valid (empty) label value; a path without a backend is told by its pathType alone.
  'io.k8s.api.discovery.v1.ForZone': ['name'],
  'io.k8s.api.networking.v1.HTTPIngressPath': ['backend'],
  // A node's status as kubelets of every age write it: ValidateNode checks none of these.
  'io.k8s.api.core.v1.NodeSystemInfo': ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'],
  'io.k8s.api.core.v1.NodeAddress': ['type', 'address'],
  'io.k8s.api.core.v1.NodeCondition': ['type', 'status'],
  'io.k8s.api.core.v1.AttachedVolume': ['name', 'devicePath'],
  'io.k8s.api.core.v1.DaemonEndpoint': ['Port'],
  // A revision decodes as 0 (only a negative one is refused); a DaemonSet without a selector is told its template's labels do not match.
  'io.k8s.api.apps.v1.ControllerRevision': ['revision'],
  'io.k8s.api.apps.v1.DaemonSetSpec': ['selector'],
  // ValidateLimitRange accepts a LimitRange without limits; a quota's match expression is
  // refused at `matchExpressions.scopeName` and `.operator`, without its index.
  'io.k8s.api.core.v1.LimitRangeSpec': ['limits'],
  'io.k8s.api.core.v1.ScopedResourceSelectorRequirement': ['scopeName', 'operator'],
};
const notRequiredBySchema = new WeakMap<Schema, ReadonlySet<string>>();

/** The properties of a built-in definition its schema's `required` does not decide (see decidedByValidation). */
export function requiredDecidedElsewhere(schema: Schema): ReadonlySet<string> | undefined {
  return notRequiredBySchema.get(schema);
}

/** Keeps what generated/go-encoding.json says of the definition `name` for goEncodingOf, as it is parsed. */
function withGoEncoding(name: string, definition: Schema): Schema {
  const decided = decidedByValidation[name];
  if (decided !== undefined) notRequiredBySchema.set(definition, new Set(decided));
  goEncodingEntries ??= JSON.parse(readFileSync(new URL('./generated/go-encoding.json', import.meta.url), 'utf8')) as Record<string, GoEncodingEntry>;
  const entry = goEncodingEntries[name];
  if (entry === undefined) return definition;
  const set = (names: string[] | undefined) => (names === undefined ? none : new Set(names));
  encodingBySchema.set(definition, {
    zero: set(entry.zero), emptyList: set(entry.emptyList), emptyMap: set(entry.emptyMap), written: Object.entries(entry.written ?? {}),
    nilWhenEmpty: entry.nilWhenEmpty ?? [],
  });
  return definition;
}

/** How Go's JSON encoding treats a built-in definition's properties, if it says anything. */
export function goEncodingOf(schema: Schema): GoEncoding | undefined {
  return encodingBySchema.get(schema);
}
