// Object request bodies (POST, PUT, subresources): decoded, with the metadata every later stage relies on well typed.
import { badRequest, parseGroupVersion, type KubeObject, type StatusError } from '../api/index.ts';
import { goJson, goQuote } from '../api/field-errors.ts';
import { isObject, withNumberText } from '../api/json.ts';
import { objectMetaDecodeError, objectMetaTimeError } from '../api/go-object-meta.ts';
import { currentRequest } from '../api/request-context.ts';
import { decodeBodyLoading, notAnObjectBody, type DecodedBody, type DecodeOptions } from '../encoding/decode.ts';
import { bodyTypeRefusal, inLegacyScheme, type BodyTypeRefusal, type SchemeTarget } from '../encoding/legacy-scheme.ts';
import { builtinDefinitions, cborObjectMetaDecodeError } from '../schema/index.ts';

const stringMetaFields = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'];

function cannotDecode(field: string, want: string): never {
  throw badRequest(`the body of the request could not be decoded: metadata.${field} must be ${want}`);
}

/**
 * A body that decodes to null (JSON's null; an empty, blank or comment-only YAML document;
 * CBOR's null): Go decodes null into the kind's struct without error, so that a built-in
 * kind's body is an empty object of the URL's kind. A custom resource's is decoded as
 * unstructured data, which must name its kind (UnstructuredJSONScheme): upstream's
 * transformDecodeError then names the URL's kind and version.
 */
function nullBody(opts: ObjectBodyOptions, cbor: boolean): Record<string, unknown> {
  if (opts.customResource !== true) return {};
  if (cbor) throw badRequest("Object 'Kind' is missing in 'null'");
  const kind = opts.kind ?? '';
  throw badRequest(`${kind} in version ${goQuote(opts.version ?? '')} cannot be handled as a ${kind}: Object 'Kind' is missing in 'null'`);
}

/**
 * A custom resource's JSON or YAML body that names no kind: unstructured decoding refuses
 * it (UnstructuredJSONScheme's missing kind, the data as JSON: a YAML body converted, its
 * keys sorted), and transformDecodeError names the URL's kind at the version the body
 * gives, else the URL's (the decoder's defaults).
 */
function missingCustomResourceKind(value: Record<string, unknown>, opts: ObjectBodyOptions, json: string): StatusError {
  const kind = opts.kind ?? '';
  const { group, version } = (typeof value.apiVersion === 'string' ? parseGroupVersion(value.apiVersion) : undefined) ?? { group: '', version: '' };
  const urlGroup = currentRequest()?.group ?? '';
  const defaulted = version !== '' ? version : group === '' || group === urlGroup ? opts.version ?? '' : '';
  return badRequest(`${kind} in version ${goQuote(defaulted)} cannot be handled as a ${kind}: Object 'Kind' is missing in '${json}'`);
}

export interface ObjectBodyOptions extends DecodeOptions {
  /**
   * For a body no Store decodes after (a review, a TokenRequest, an Eviction, a Binding): its
   * kind's version, to decode its metadata as ObjectMeta here and name them in the 400.
   */
  metadataOfVersion?: string;
  /**
   * For such a body: the type its URL takes, which a body of another kind or version is
   * refused for as upstream's decoding into it refuses it (legacy-scheme.ts).
   */
  schemeType?: SchemeTarget;
  /** The version of a body a Store decodes after: its metadata's members of the wrong type are refused here already, in Go's words. */
  version?: string;
}

export interface ObjectBody {
  object: KubeObject;
  /** Fields given twice in one object of the body (found when asked for). */
  duplicateFields: string[];
  /** A CBOR body's CBOR types of its items by path, which decoding errors name (decode.ts). */
  cborTypeAt?: DecodedBody['cborTypeAt'];
  /** A JSON body's first number past a float64's range, as written (decode.ts). */
  numberOverflow?: string;
  /** A JSON body's numbers written with a fraction or an exponent (decode.ts). */
  floatNumbers?: DecodedBody['floatNumbers'];
  /** A CBOR body's float item holding an integer (decode.ts). */
  cborIntegralFloat?: true;
}

/**
 * A request body as an object with well-typed metadata. Field-level checks of the
 * rest belong to validation; here only what every later stage relies on.
 */
export async function decodeObjectBody(contentType: string | undefined, body: Uint8Array, opts: ObjectBodyOptions = {}): Promise<ObjectBody> {
  const protobuf = contentType?.includes('protobuf') === true;
  // An empty body is decoded like any other (upstream has no check of its own): JSON's
  // "unexpected end of JSON input", an empty YAML document's null, Protobuf's "empty data".
  const decoded = await decodeBodyLoading(contentType, body, protobuf ? withServedApiVersion(opts) : opts);
  const { duplicateFields, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat } = decoded;
  const value = decoded.value === null ? nullBody(opts, cborTypeAt !== undefined) : decoded.value;
  // Bodies that are not objects were refused in decoding (decode.ts), in each encoding's words.
  if (!isObject(value)) throw notAnObjectBody(value);
  if (opts.customResource === true && cborTypeAt === undefined && (value.kind === undefined || value.kind === '')) {
    throw missingCustomResourceKind(value, opts, contentType?.includes('yaml') === true ? goJson(value, true).text : Buffer.from(body).toString('utf8'));
  }
  const typeRefusal = builtinTypeRefusal(value, opts, body, protobuf || cborTypeAt !== undefined);
  if (typeRefusal?.beforeFields === true) throw badRequest(typeRefusal.message);
  const meta = value.metadata ?? {};
  if (!isObject(meta)) throw badRequest('the body of the request could not be decoded: metadata must be an object');
  // Before the checks below, whose words are Plinth's: this body's are Go's.
  const version = opts.metadataOfVersion ?? opts.version;
  if (version !== undefined) {
    // A Store parses the times with the rest of its type's.
    const texts = floatNumbers === undefined || opts.customResource === true ? undefined : floatNumbers.textsIn(value);
    const error = objectMetaDecodeError(meta, texts) ?? (opts.metadataOfVersion === undefined ? undefined : objectMetaTimeError(meta));
    const kind = opts.kind ?? '';
    if (error !== undefined) {
      // The body's own kind and version when it names others (still to be refused in conversion).
      const named = typeRefusal ?? { kind, version };
      // A CBOR body of a built-in type fails as fxamacker/cbor decodes it into the Go struct.
      const words = cborTypeAt !== undefined && opts.customResource !== true ? cborObjectMetaDecodeError(builtinDefinitions, meta, cborTypeAt, `${named.version}.${named.kind}`) : undefined;
      throw badRequest(`${named.kind} in version ${JSON.stringify(named.version)} cannot be handled as a ${kind}: ${words ?? withNumberText(error, numberOverflow)}`);
    }
  }
  // Conversion into the URL's type follows the decoding of the fields.
  if (typeRefusal !== undefined) throw badRequest(typeRefusal.message);
  // Go decodes a null label, annotation or finalizer as "".
  for (const field of ['labels', 'annotations']) {
    const map = meta[field];
    if (isObject(map)) for (const key in map) if (map[key] === null) map[key] = '';
  }
  if (Array.isArray(meta.finalizers)) meta.finalizers = meta.finalizers.map((f) => f ?? '');
  for (const field of stringMetaFields) {
    if (meta[field] !== undefined && meta[field] !== null && typeof meta[field] !== 'string') cannotDecode(field, 'a string');
    if (meta[field] === null) delete meta[field];
  }
  for (const field of ['labels', 'annotations']) {
    const map = meta[field];
    if (map === undefined || map === null) {
      delete meta[field];
      continue;
    }
    if (!isObject(map) || Object.values(map).some((v) => typeof v !== 'string')) cannotDecode(field, 'a map of strings');
  }
  if (meta.finalizers !== undefined && meta.finalizers !== null) {
    if (!Array.isArray(meta.finalizers) || meta.finalizers.some((f) => typeof f !== 'string')) cannotDecode('finalizers', 'a list of strings');
  }
  if (meta.ownerReferences !== undefined && meta.ownerReferences !== null && !Array.isArray(meta.ownerReferences)) cannotDecode('ownerReferences', 'a list');
  if (value.apiVersion !== undefined && typeof value.apiVersion !== 'string') throw badRequest('the body of the request could not be decoded: apiVersion must be a string');
  if (value.kind !== undefined && typeof value.kind !== 'string') throw badRequest('the body of the request could not be decoded: kind must be a string');
  value.metadata = meta;
  currentRequest()?.auditRequestObject?.(value);
  const answer: ObjectBody = { object: value as KubeObject, duplicateFields, cborTypeAt };
  if (numberOverflow !== undefined) answer.numberOverflow = numberOverflow;
  if (floatNumbers !== undefined) answer.floatNumbers = floatNumbers;
  if (cborIntegralFloat === true) answer.cborIntegralFloat = true;
  return answer;
}

/**
 * A built-in type's body (one a Store decodes after, or one naming its schemeType) of another
 * kind or version than the URL's, refused as the create and update handlers' decoding refuses it (legacy-scheme.ts);
 * the types other servers' schemes decode keep the Store's check. A CBOR or Protobuf body's
 * missing apiVersion is not put in upstream's words here: it is left to the Store.
 */
function builtinTypeRefusal(value: Record<string, unknown>, opts: ObjectBodyOptions, body: Uint8Array, binary: boolean): BodyTypeRefusal | undefined {
  const bodyText = () => (binary ? undefined : Buffer.from(body).toString('utf8'));
  if (opts.schemeType !== undefined) return bodyTypeRefusal(value.apiVersion, value.kind, opts.schemeType, bodyText);
  if (opts.version === undefined || opts.metadataOfVersion !== undefined || opts.customResource === true || opts.kind === undefined) return undefined;
  const group = currentRequest()?.group ?? '';
  if (!inLegacyScheme(group)) return undefined;
  return bodyTypeRefusal(value.apiVersion, value.kind, { group, version: opts.version, kind: opts.kind }, bodyText);
}

/**
 * The options with the apiVersion the request's URL serves the body's kind at, for a
 * Protobuf envelope that names no apiVersion: the request's group at the body's version.
 */
function withServedApiVersion(opts: ObjectBodyOptions): ObjectBodyOptions {
  const version = opts.version ?? opts.metadataOfVersion;
  if (version === undefined) return opts;
  const group = currentRequest()?.group ?? '';
  return { ...opts, apiVersion: group === '' ? version : `${group}/${version}` };
}

/**
 * A created object's namespace against the request's, as upstream's create handler checks
 * every create, a subresource's too (EnsureObjectNamespaceMatchesRequestNamespace): 400
 * when the body names another namespace; set to the request's when it names none.
 */
export function ensureRequestNamespace(obj: KubeObject, namespace: string): void {
  const own = obj.metadata.namespace;
  if (own !== undefined && own !== '' && own !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  obj.metadata.namespace = namespace;
}
