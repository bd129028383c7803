// Field validation (the `fieldValidation` parameter of POST, PUT and PATCH): what to do
// about fields the type's schema does not know and fields a body gives twice. Upstream
// finds both while decoding (strict decoding, apimachinery's runtime.StrictDecodingError);
// here the Store prunes the object against its schema and every write verb passes the
// decoder's duplicates and its directive through WriteOptions.

import type { KubeObject, StatusError } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';

export type FieldValidationDirective = 'Ignore' | 'Warn' | 'Strict';

export interface FieldValidation {
  /** Ignore: drop silently. Warn: drop and warn per field. Strict: refuse the write. */
  directive: FieldValidationDirective;
  /** Fields the decoder found twice in one object of the body (`spec.replicas`). */
  duplicateFields?: readonly string[];
  /**
   * The strict decoding errors of the patch itself, said before the object's: a JSON patch's
   * operations decoded strictly (`json patch unknown field "[0].foo"`), as upstream's patcher.
   */
  patchErrors?: readonly string[];
  /**
   * The error for Strict, given upstream's `strict decoding error: ...` text and the
   * object as decoded (or patched). Absent: 400 BadRequest, as creates and updates
   * answer; patch handlers answer 422 and say so here.
   */
  strictError?: (message: string, obj: KubeObject) => StatusError;
  /**
   * The error for a decoded object its conversion to the internal type refuses (Go's text).
   * Absent: decoding's error (strictError's form for patches). A strategic merge patch's is
   * upstream's bare 500: its patcher returns the converter's error as it is.
   */
  conversionFailure?: (message: string) => StatusError;
}

/** Upstream's strict decoding errors: duplicates as the decoder met them, then unknown fields. */
export function strictDecodingErrors(duplicateFields: readonly string[], unknownFields: readonly string[]): string[] {
  return [
    ...duplicateFields.map((path) => `duplicate field ${goQuote(path)}`),
    ...unknownFields.map((path) => `unknown field ${goQuote(path)}`),
  ];
}

/** runtime.StrictDecodingError's text. */
export function strictDecodingMessage(errors: readonly string[]): string {
  return `strict decoding error: ${errors.join(', ')}`;
}
