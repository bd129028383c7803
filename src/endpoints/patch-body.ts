// PATCH bodies other than apply: the media type checked as upstream checks it, the body decoded and applied.
import { badRequest, staleObject, StatusError, unsupportedMediaType, type GroupResource } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { replaceLoneSurrogateEscapes } from '../api/lone-surrogates.ts';
import { duplicateJsonFields, jsonPatchStrictErrors } from '../encoding/duplicate-fields.ts';
import { applyPatch, patchedNumberForms, patchMediaTypes, type PatchKind } from '../patch/index.ts';
import type { NumberForms } from '../api/number-forms.ts';
import { floatFormNumbers } from '../encoding/json-number-forms.ts';
import { builtinDefinitions, schemaRef } from '../schema/index.ts';

/** A decoded PATCH body and how to apply it to the object (in JSON form) it patches. */
export interface DecodedPatch {
  /** Applies the patch; `current` is not modified. Throws StatusErrors as upstream answers. */
  apply(current: Record<string, unknown>): Record<string, unknown>;
  /** metadata.resourceVersion in a merge or strategic patch: a precondition (409 when stale), as upstream. */
  resourceVersion: string | undefined;
  /** Fields the patch itself gives twice (for strict field validation). */
  duplicateFields: string[];
  /** A JSON patch's own strict decoding errors (`json patch unknown field "[0].foo"`), under Warn and Strict. */
  patchErrors: string[];
  /** The patch as parsed (undefined when it is not JSON: applying it answers the 400). */
  value: unknown;
  /**
   * Where the patched object holds numbers the patch wrote with a fraction or an exponent
   * (`1.0`): a JSON or merge patch keeps their text upstream, and decoding the result tells
   * them from integers; a strategic merge patch's map writes them back as `1`.
   */
  floatNumbers?: NumberForms;
}

export interface PatchTarget {
  /** The definition the object's kind has among the built-in ones; strategic merge needs it. */
  schemaName: string;
  groupResource: GroupResource;
  /** The request's field validation: it words a body that is not JSON (patch/apply-patch.ts). */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/**
 * The patch types a PATCH accepts, as upstream lists them in its 415: strategic merge
 * only for types with a built-in schema (not custom resources), apply in CBOR with its gate.
 */
export function patchTypesFor(strategic: boolean, cbor: boolean): string[] {
  return [
    patchMediaTypes.json, patchMediaTypes.merge, ...(strategic ? [patchMediaTypes.strategic] : []),
    'application/apply-patch+yaml', ...(cbor ? ['application/apply-patch+cbor'] : []),
  ];
}

const kindsByMediaType = new Map<string, PatchKind>(Object.entries(patchMediaTypes).map(([kind, media]) => [media, kind as PatchKind]));

/** What a PATCH's Content-Type asks for: a patch type, or server-side apply in YAML (JSON is YAML) or CBOR. */
export type PatchMediaKind = PatchKind | 'apply-yaml' | 'apply-cbor';

/** Where the PATCH goes: its headers, and which patch types its resource takes. */
export interface PatchRoute {
  contentType: string | undefined;
  contentLength: string | undefined;
  /** Served from a CustomResourceDefinition: no strategic merge, and no go-restful route in front (upstream's crdHandler). */
  customResource: boolean;
  /** The CBORServingAndStorage gate. */
  cbor: boolean;
}

/**
 * The patch type a PATCH's Content-Type names, refused as kube-apiserver refuses it, before
 * anything else about the request (options, body, object) is looked at:
 * - built-in types are routes of go-restful, which first matches the Content-Type against
 *   the route's Consumes (the patch types): each comma-separated entry, cut at `;` and
 *   trimmed of spaces, compared exactly; an empty one reads as application/octet-stream.
 *   None matching is its bare 415 when the request has a Content-Length above 0, and
 *   otherwise its 406 (no route left to produce anything), which kube-apiserver's
 *   serviceErrorHandler passes through NewGenericServerResponse (go-restful's jsr311.go
 *   detectRoute; apiserver/pkg/server/handler.go);
 * - then PatchResource (handlers/patch.go) keeps the text before the first `;` (when not
 *   at the start), untrimmed, and compares it exactly with the patch types: 415 listing them.
 */
export function patchMediaKindOf(route: PatchRoute): PatchMediaKind {
  const supported = patchTypesFor(!route.customResource, route.cbor);
  const header = route.contentType ?? '';
  if (!route.customResource && !restfulConsumes(header, supported)) {
    if (/^[0-9]+$/.test(route.contentLength ?? '') && Number(route.contentLength) > 0) {
      throw new StatusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
    }
    throw new StatusError(406, 'NotAcceptable', '406: Not Acceptable\n\nAvailable representations: ', {});
  }
  const semicolon = header.indexOf(';');
  const contentType = semicolon > 0 ? header.slice(0, semicolon) : header;
  if (!supported.includes(contentType)) throw unsupportedMediaType('', supported);
  if (contentType === 'application/apply-patch+yaml') return 'apply-yaml';
  if (contentType === 'application/apply-patch+cbor') return 'apply-cbor';
  return kindsByMediaType.get(contentType)!;
}

/** go-restful's Route.matchesContentType for a PATCH route. */
function restfulConsumes(header: string, consumes: string[]): boolean {
  const mimeTypes = header === '' ? 'application/octet-stream' : header;
  return mimeTypes.split(',').some((entry) => {
    const semicolon = entry.indexOf(';');
    return consumes.includes((semicolon >= 0 ? entry.slice(0, semicolon) : entry).replace(/^ +| +$/g, ''));
  });
}

interface PatchedMetadata { name?: unknown; namespace?: unknown; resourceVersion?: unknown }

function metadataOf(obj: Record<string, unknown>): PatchedMetadata {
  return (typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {}) as PatchedMetadata;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * Decodes a PATCH's body of the `kind` its Content-Type names (patchMediaKindOf checked it,
 * and writeOptions the options) for the shared patch functions (patch/): JSON merge patch,
 * JSON Patch, and strategic merge patch for types with a built-in schema.
 */
export function decodePatch(kind: PatchKind, body: Uint8Array, target: PatchTarget): DecodedPatch {
  const strategic = builtinDefinitions[target.schemaName] !== undefined;
  const schema = strategic ? { $ref: schemaRef(target.schemaName) } : undefined;
  const context = { defs: builtinDefinitions, schema, fieldValidation: target.fieldValidation };
  // Lone surrogates read as U+FFFD, as Go reads them (and as applyPatch reads the patch).
  const text = replaceLoneSurrogateEscapes(Buffer.from(body).toString('utf8'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined; // applyPatch answers the 400.
  }
  const meta = kind !== 'json' && isObject(parsed) ? metadataOf(parsed) : {};
  const written = kind === 'strategic' || parsed === undefined ? undefined : floatFormNumbers(text);
  const floatNumbers = written === undefined || kind === 'merge' ? written : patchedNumberForms(parsed, written);
  return {
    ...(floatNumbers === undefined ? {} : { floatNumbers }),
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined,
    duplicateFields: kind === 'json' || parsed === undefined ? [] : duplicateJsonFields(text),
    patchErrors: kind !== 'json' || parsed === undefined || target.fieldValidation === 'Ignore' ? [] : jsonPatchStrictErrors(text).map((error) => `json patch ${error}`),
    value: parsed,
    apply(current) {
      const patched = applyPatch(kind, current, body, context) as Record<string, unknown>;
      // Upstream's patcher checks the result is the object of the URL: its namespace
      // (EnsureObjectNamespaceMatchesRequestNamespace), then its name (rest.go's checkName).
      const { name, namespace } = metadataOf(patched);
      const urlName = String(metadataOf(current).name ?? '');
      const urlNamespace = metadataOf(current).namespace;
      if (nonEmpty(urlNamespace) && nonEmpty(namespace) && namespace !== urlNamespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (!nonEmpty(name)) throw badRequest(`the name of the object (${urlName} based on URL) was undeterminable: name must be provided`);
      if (name !== urlName) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${urlName})`);
      // A JSON Patch that sets another resourceVersion asks for that version (upstream's patcher).
      const rv = metadataOf(patched).resourceVersion;
      if (kind === 'json' && typeof rv === 'string' && rv !== '' && rv !== metadataOf(current).resourceVersion) {
        throw staleObject(target.groupResource, String(metadataOf(current).name ?? ''));
      }
      return patched;
    },
  };
}
