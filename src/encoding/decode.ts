// Request bodies: JSON and YAML decoded by Content-Type, with duplicate fields found.
import YAML from 'yaml';
import { badRequest, unsupportedMediaType } from '../api/index.ts';
import { duplicateJsonFields, duplicateYamlFields } from './duplicate-fields.ts';
import { parseMediaType } from './media-type.ts';
import { decodeProtobufObject, protobufMediaType } from './protobuf/index.ts';

const requestBodyTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

export interface DecodedBody {
  value: unknown;
  /**
   * Paths of fields given twice in one object, when asked for (JSON and YAML; a
   * Protobuf body cannot repeat a field that way).
   */
  duplicateFields: string[];
}

/**
 * Decodes an object body by its Content-Type into plain JSON data. `findDuplicates`
 * costs a scan of the text; field validation Ignore does without.
 */
export function decodeBody(contentType: string | undefined, body: Uint8Array, opts: { findDuplicates?: boolean } = {}): DecodedBody {
  // No Content-Type means the first supported type, JSON, as upstream's NegotiateInputSerializer
  // (client-go's scale client sends its PUT without one).
  const media = parseMediaType(contentType === undefined || contentType === '' ? 'application/json' : contentType);
  const essence = media === undefined ? '' : `${media.type}/${media.subtype}`;
  const findDuplicates = opts.findDuplicates ?? false;
  if (essence === 'application/json') {
    const text = utf8(body);
    const value = parseJson(text);
    return { value, duplicateFields: findDuplicates ? duplicateJsonFields(text) : [] };
  }
  if (essence === 'application/yaml') {
    const text = utf8(body);
    // Most YAML bodies are JSON (kubectl sends apply configurations as JSON): JSON.parse
    // reads them many times faster, with the same result, since JSON is YAML.
    if (text.trimStart().startsWith('{')) {
      try {
        const value: unknown = JSON.parse(text);
        return { value, duplicateFields: findDuplicates ? duplicateJsonFields(text) : [] };
      } catch {
        // Not JSON after all (YAML flow style, comments...): the YAML parser decides.
      }
    }
    const doc = parseYamlDocument(text);
    return { value: doc.toJS({ maxAliasCount: 100 }), duplicateFields: findDuplicates ? duplicateYamlFields(doc) : [] };
  }
  if (essence === protobufMediaType) return { value: decodeProtobufObject(body), duplicateFields: [] };
  throw unsupportedMediaType(contentType ?? '', requestBodyTypes);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(err as Error).message}`);
  }
}

/** A YAML document with duplicate keys allowed (field validation reports them). */
function parseYamlDocument(text: string): YAML.Document {
  let doc: YAML.Document;
  try {
    doc = YAML.parseDocument(text, { version: '1.2', uniqueKeys: false });
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as YAML: ${(err as Error).message}`);
  }
  if (doc.errors.length > 0) throw badRequest(`the body of the request could not be decoded as YAML: ${doc.errors[0]!.message}`);
  return doc;
}

export function encodeYaml(value: unknown): string {
  return YAML.stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
}

function utf8(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
