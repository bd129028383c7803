// Request bodies: JSON, YAML, Protobuf and (with its gate) CBOR decoded by Content-Type, with duplicate fields found.
import { badRequest, firstTooDeep, isStatusError, mayNestTooDeep, tooDeepMessage, unsupportedMediaType, type StatusError } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { goJsonSyntaxError } from '../api/go-json-syntax.ts';
import { goFieldTypeError, goJsonKind } from '../api/json.ts';
import { replaceLoneSurrogateEscapes } from '../api/lone-surrogates.ts';
import { cborTypeAt, decodeCborNotingFloats } from './cbor.ts';
import { duplicateJsonFields } from './duplicate-fields.ts';
import { floatFormNumbers } from './json-number-forms.ts';
import type { NumberForms } from '../api/number-forms.ts';
import { parseMediaType } from './media-type.ts';
import { loadedProtobufCodec, loadProtobufCodec } from './protobuf-loader.ts';
import { loadedYaml, loadYaml } from '../api/yaml.ts';
import { parseYamlBody, readYamlBody } from './yaml-read.ts';
import { encodeYaml as writeYaml } from './yaml-write.ts';

const protobufMediaType = 'application/vnd.kubernetes.protobuf';
const cborMediaType = 'application/cbor';
const requestBodyTypes = ['application/json', 'application/yaml', protobufMediaType];

/** The media types object bodies may have, in upstream's order: CBOR last, with its gate. */
export function bodyMediaTypes(cbor: boolean): string[] {
  return cbor ? [...requestBodyTypes, cborMediaType] : requestBodyTypes;
}

export interface DecodeOptions {
  /** Find fields given twice (JSON and YAML; CBOR refuses duplicate keys outright). */
  findDuplicates?: boolean;
  /** The CBORServingAndStorage gate: application/cbor bodies are read (else 415). */
  cbor?: boolean;
  /**
   * The kind the body must be: an object body's (a Protobuf envelope that names none decodes
   * as it), named in the 400 for a body whose kind cannot be read (upstream's transformDecodeError).
   */
  kind?: string;
  /**
   * Errors in the decoder's own words, not wrapped as the create and update handlers wrap
   * them: upstream's delete handler answers its decoding errors so (as 400s since 1.35).
   */
  unwrappedErrors?: boolean;
  /** The apiVersion the request's URL serves `kind` at, which a Protobuf envelope that names none decodes as (copyKindDefaults). */
  apiVersion?: string;
  /**
   * The body is a custom resource's: decoded as unstructured data, whose errors are JSON's
   * words in any encoding (and which upstream's Protobuf decoder cannot decode into).
   */
  customResource?: boolean;
}

/** decodeBody, first loading the Protobuf codec or the YAML library when the body's type needs it. */
export async function decodeBodyLoading(contentType: string | undefined, body: Uint8Array, opts: DecodeOptions = {}): Promise<DecodedBody> {
  if (contentType !== undefined) {
    if (loadedProtobufCodec() === undefined && contentType.includes('protobuf')) await loadProtobufCodec();
    else if (loadedYaml() === undefined && contentType.includes('yaml')) await loadYaml();
  }
  return decodeBody(contentType, body, opts);
}

export interface DecodedBody {
  value: unknown;
  /**
   * Paths of fields given twice in one object, when asked for (JSON and YAML; a
   * Protobuf body cannot repeat a field that way).
   */
  duplicateFields: string[];
  /**
   * A CBOR body's CBOR type of the item at a path (map keys and list indexes from the
   * root), for decoding errors in fxamacker/cbor's words: the decoded value does not tell
   * a byte string from a text string, nor a float from an integer.
   */
  cborTypeAt?: (path: readonly (string | number)[]) => string | undefined;
  /**
   * A JSON body's first number no float64 holds (`1e400`, which JSON.parse makes Infinity
   * and JSON.stringify null), as written: Go's decoding fails on it where it decodes it.
   */
  numberOverflow?: string;
  /** A JSON body's numbers written with a fraction or an exponent (`1.0`), which Go's decoding tells from integers. */
  floatNumbers?: NumberForms;
  /** A CBOR body has a float item holding an integer (`2.0`), which no Go integer field takes. */
  cborIntegralFloat?: true;
}

/**
 * Decodes an object body by its Content-Type into plain JSON data. `findDuplicates`
 * costs a scan of the text; field validation Ignore does without.
 */
export function decodeBody(contentType: string | undefined, body: Uint8Array, opts: DecodeOptions = {}): DecodedBody {
  // No Content-Type means the first supported type, JSON, as upstream's NegotiateInputSerializer
  // (client-go's scale client sends its PUT without one).
  const media = parseMediaType(contentType === undefined || contentType === '' ? 'application/json' : contentType);
  const essence = media === undefined ? '' : `${media.type}/${media.subtype}`;
  const findDuplicates = opts.findDuplicates ?? false;
  if (essence === 'application/json' || essence === 'application/yaml') {
    if (opts.kind === undefined) return decodeText(essence, body, findDuplicates);
    return decodeObjectText(essence, body, findDuplicates, opts.kind, opts.unwrappedErrors === true);
  }
  if (essence === protobufMediaType) {
    // Messages nest at most 300 deep (the codec's own bound), but the JSON a RawExtension
    // carries (a custom resource in a list, an admission review) is bounded only here.
    const codec = loadedProtobufCodec();
    if (codec === undefined) throw new Error('the Protobuf codec is not loaded: decode through decodeBodyLoading');
    let value: unknown;
    try {
      value = codec.decodeProtobufBody(body, opts.kind === undefined ? undefined : { kind: opts.kind, apiVersion: opts.apiVersion, unstructured: opts.customResource === true });
    } catch (err) {
      if (!(err instanceof codec.ProtobufDecodeError)) throw err;
      if (opts.unwrappedErrors === true) throw badRequest(err.message);
      // As upstream's transformDecodeError: after the kind the envelope named, once it was read.
      if (err.kind !== undefined && opts.kind !== undefined) {
        throw badRequest(`${err.kind} in version ${goQuote(err.version ?? '')} cannot be handled as a ${opts.kind}: ${err.message}`);
      }
      throw unrecognizedObject(opts.kind ?? '', err.message, body);
    }
    refuseDeepNesting(value);
    return { value, duplicateFields: [] };
  }
  if (essence === cborMediaType && opts.cbor === true) {
    const kind = opts.unwrappedErrors === true ? '' : opts.kind ?? '';
    const { value, integralFloat } = decodeCborBody(body, kind);
    const decoded: DecodedBody = { value, duplicateFields: [], cborTypeAt: (path) => cborTypeAt(body, path) };
    if (integralFloat) decoded.cborIntegralFloat = true;
    return decoded;
  }
  // Upstream's answer names the types, not the one sent.
  throw unsupportedMediaType('', bodyMediaTypes(opts.cbor ?? false));
}

/** A JSON or YAML body as it reads, with its fields given twice when asked for. */
function decodeText(essence: 'application/json' | 'application/yaml', body: Uint8Array, findDuplicates: boolean): DecodedBody {
  if (essence === 'application/json') {
    // Lone surrogates read as U+FFFD, as Go reads them; fields given twice are found in the text so read.
    const text = replaceLoneSurrogateEscapes(utf8(body));
    const value = parseJson(text);
    const decoded: DecodedBody = { value, duplicateFields: findDuplicates ? duplicateJsonFields(text) : [] };
    const overflow = overflowingNumber(text);
    if (overflow !== undefined) decoded.numberOverflow = overflow;
    const floatNumbers = floatFormNumbers(text);
    if (floatNumbers !== undefined) decoded.floatNumbers = floatNumbers;
    return decoded;
  }
  const text = utf8(body);
  // Most YAML bodies are JSON (kubectl sends apply configurations as JSON): JSON.parse
  // reads them many times faster, with the same result: JSON text has no plain scalars
  // YAML 1.1 reads otherwise, and its keys are strings.
  // A number past a float64 is a string to go-yaml, not JSON's Infinity: the YAML reader's.
  if (text.trimStart().startsWith('{') && overflowingNumber(text) === undefined) {
    try {
      const value: unknown = JSON.parse(text);
      if (mayNestTooDeep(text)) refuseDeepNesting(value);
      return { value, duplicateFields: findDuplicates ? duplicateJsonFields(text) : [] };
    } catch {
      // Not JSON after all (YAML flow style, comments...): the YAML parser decides.
    }
  }
  // As kube-apiserver reads YAML: go-yaml v2's YAML 1.1, first document only (yaml-read.ts).
  return readYamlBody(parseYamlBody(text), findDuplicates);
}

/** What apimachinery's kind sniffing prefixes its JSON errors with (json.SimpleMetaFactory.Interpret). */
const kindSniffing = "couldn't get version/kind; json parse error: ";

/**
 * A JSON or YAML object body of `kind`. What keeps its kind from being read (text that is
 * not JSON or too deep, a value that is not an object, an apiVersion or kind that is not a
 * string, an apiVersion with more than one slash) fails before anything else, as upstream's
 * serializer reads the kind first (json.go, Decode); with no kind read, the create and update
 * handlers name the kind expected and summarise the body (transformDecodeError).
 */
function decodeObjectText(essence: 'application/json' | 'application/yaml', body: Uint8Array, findDuplicates: boolean, kind: string, unwrapped: boolean): DecodedBody {
  const refuse = (cause: string) => (unwrapped ? badRequest(cause) : unrecognizedObject(kind, cause, body));
  let decoded: DecodedBody;
  try {
    decoded = decodeText(essence, body, findDuplicates);
  } catch (err) {
    if (isStatusError(err) && err.message.startsWith(kindSniffing)) throw refuse(err.message);
    throw err;
  }
  const cause = typeMetaError(decoded.value);
  if (cause !== undefined) throw refuse(cause);
  return decoded;
}

/**
 * The error apimachinery's kind sniffing meets in a decoded JSON or YAML body, in its words:
 * Go decodes the body into a struct of apiVersion and kind (null leaves both empty), then
 * parses the apiVersion (schema.ParseGroupVersion). Of an apiVersion and a kind both of the
 * wrong type, Go names the first in the body.
 */
export function typeMetaError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return notAnObjectBody(value).message;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  const wrongApiVersion = apiVersion !== undefined && apiVersion !== null && typeof apiVersion !== 'string';
  const wrongKind = kind !== undefined && kind !== null && typeof kind !== 'string';
  if (wrongApiVersion || wrongKind) {
    const keys = wrongApiVersion && wrongKind ? Object.keys(value) : [];
    const field = wrongApiVersion && (!wrongKind || keys.indexOf('apiVersion') < keys.indexOf('kind')) ? 'apiVersion' : 'kind';
    return `${kindSniffing}${goFieldTypeError(field === 'apiVersion' ? apiVersion : kind, '', field, 'string')}`;
  }
  if (typeof apiVersion === 'string') {
    const slash = apiVersion.indexOf('/');
    if (slash >= 0 && apiVersion.includes('/', slash + 1)) return `unexpected GroupVersion string: ${apiVersion}`;
  }
  return undefined;
}

/**
 * A CBOR object body. A body that does not decode is 400 in the words of upstream's
 * decoding: its kind cannot be read, so the error names the kind expected and
 * summarises the bytes (transformDecodeError). A body that decodes but is not a map is
 * refused as Go refuses it when reading the kind into a TypeMeta; null is left to the
 * caller, which answers it as JSON's null.
 */
function decodeCborBody(body: Uint8Array, kind: string): { value: unknown; integralFloat: boolean } {
  let value: unknown;
  let integralFloat: boolean;
  try {
    ({ value, integralFloat } = decodeCborNotingFloats(body));
  } catch (err) {
    if (!isStatusError(err)) throw err;
    throw unrecognizedObject(kind, `unable to determine group/version/kind: ${err.message}`, body);
  }
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw unrecognizedObject(kind, `unable to determine group/version/kind: cbor: cannot unmarshal ${cborKind(value)} into Go value of type v1.TypeMeta`, body);
  }
  return { value, integralFloat };
}

/** The CBOR major type fxamacker/cbor names for a decoded value that is not a map. */
function cborKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'byte string'; // Kubernetes encoders write strings as byte strings
  if (typeof value === 'number') return Number.isInteger(value) ? (value < 0 ? 'negative integer' : 'positive integer') : 'primitives';
  return 'primitives';
}

function unrecognizedObject(kind: string, cause: string, body: Uint8Array): StatusError {
  if (kind === '') return badRequest(cause);
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${cause} (${summarizeBody(body)})`);
}

/** The first 30 bytes of a body for an error message, as upstream's summarizeData: text when it opens like JSON, else hex. */
function summarizeBody(body: Uint8Array): string {
  const max = 30;
  if (body.length === 0) return '<empty>';
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, max));
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > max ? `${text} ...` : text;
}

/**
 * 400 for a body that is not an object (a scalar, a list), in the words of apimachinery's
 * kind sniffing, which meets it first: it decodes the body into a struct of apiVersion and kind.
 */
export function notAnObjectBody(value: unknown): StatusError {
  return badRequest(`${kindSniffing}json: cannot unmarshal ${goJsonKind(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
}

/**
 * JSON text (DeleteOptions and other non-object bodies), refused as the object bodies are
 * when malformed or too deep: a syntax error in Go's words under the prefix of
 * apimachinery's kind sniffing, which meets it first.
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const syntax = goJsonSyntaxError(Buffer.from(text, 'utf8')) ?? (err as Error).message;
    throw badRequest(`${kindSniffing}${syntax}`);
  }
  if (mayNestTooDeep(text)) refuseDeepNesting(value);
  return value;
}


/**
 * 400 for a value nested deeper than `maxNestingDepth` (api/nesting.ts), with the
 * error Go's JSON scanner gives under the prefix of apimachinery's kind sniffing, which
 * is where kube-apiserver meets it first. A cyclic value (a YAML alias inside its own
 * anchor) is infinitely deep and refused the same way.
 */
export function refuseDeepNesting(value: unknown): void {
  const opener = firstTooDeep(value);
  if (opener !== undefined) throw badRequest(`${kindSniffing}${tooDeepMessage(opener)}`);
}

/** A YAML answer, written as kube-apiserver's YAML serializer writes it (yaml-write.ts). */
export function encodeYaml(value: unknown): string {
  return writeYaml(value);
}

/** What may hold a number past a float64's range: an exponent of three digits or more, or 309 digits in a row. */
const mayOverflow = /\d(?:[eE]\+?\d{3}|\d{308})/;

/** The first number literal of JSON `text` (valid JSON) that parses to an infinity, as written; undefined when there is none. */
export function overflowingNumber(text: string): string | undefined {
  if (!mayOverflow.test(text)) return undefined;
  const literal = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, escapes skipped.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      literal.lastIndex = i;
      const match = literal.exec(text);
      if (match === null) continue;
      if (!Number.isFinite(Number(match[0]))) return match[0];
      i += match[0].length - 1;
    }
  }
  return undefined;
}

function utf8(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
