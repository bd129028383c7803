import YAML from 'yaml';
import { badRequest, unsupportedMediaType } from '../api/index.ts';
import { parseMediaType } from './media-type.ts';
import { decodeProtobufObject, protobufMediaType } from './protobuf/index.ts';

export const requestBodyTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** Decodes an object body by its Content-Type into plain JSON data. */
export function decodeBody(contentType: string | undefined, body: Uint8Array): unknown {
  const media = parseMediaType(contentType ?? '');
  const essence = media === undefined ? '' : `${media.type}/${media.subtype}`;
  if (essence === 'application/json') return parseJson(utf8(body));
  if (essence === 'application/yaml') return parseYaml(utf8(body));
  if (essence === protobufMediaType) return decodeProtobufObject(body);
  throw unsupportedMediaType(contentType ?? '', requestBodyTypes);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(err as Error).message}`);
  }
}

export function parseYaml(text: string): unknown {
  let doc: YAML.Document;
  try {
    doc = YAML.parseDocument(text, { version: '1.2', uniqueKeys: false });
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as YAML: ${(err as Error).message}`);
  }
  if (doc.errors.length > 0) throw badRequest(`the body of the request could not be decoded as YAML: ${doc.errors[0]!.message}`);
  return doc.toJS({ maxAliasCount: 100 });
}

export function encodeYaml(value: unknown): string {
  return YAML.stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
}

function utf8(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
