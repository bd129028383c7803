// Query parameters every write shares (dryRun, fieldManager, fieldValidation), and the
// query string read as Go reads it.
import { badRequest, invalid, type StatusCause } from '../api/index.ts';
import { appendAll } from '../api/field-errors.ts';
import { managerOrUserAgent } from '../registry/field-manager.ts';
import type { FieldValidationDirective } from '../registry/field-validation.ts';
import { goParseInt64Error } from './request-info.ts';

/** The write options upstream validates as one list (ValidateCreateOptions, ValidateUpdateOptions, ValidatePatchOptions). */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/** Go's %#v of a []string, as a NotSupported error prints the dryRun list. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's %#U of a code point: `U+0001`, with the character quoted when it is printable. */
function goCodePoint(char: string): string {
  const hex = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return printable.test(char) ? `U+${hex} '${char}'` : `U+${hex}`;
}

function fieldManagerCauses(fieldManager: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(fieldManager) > 128) causes.push({ reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be more than 128 bytes' });
  // Each character that is not printable, at its byte position (Go ranges over the string's bytes).
  let position = 0;
  for (const char of fieldManager) {
    if (!printable.test(char)) {
      causes.push({ reason: 'FieldValueInvalid', field: 'fieldManager', message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character ${goCodePoint(char)} (at position ${position})` });
    }
    position += Buffer.byteLength(char);
  }
  return causes;
}

/** upstream's ValidateDryRun: one cause naming the whole list when any value is not "All". */
function dryRunCauses(values: readonly string[]): StatusCause[] {
  if (values.every((v) => v === 'All')) return [];
  return [{ reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${goStringSlice(values)}: supported values: "All"` }];
}

/**
 * A write's dryRun and fieldValidation, its options checked together in upstream's order,
 * all refusals in one 422 (its Validate*Options): for a patch first `force` (only for apply)
 * or a missing fieldManager (apply needs one), then fieldManager, dryRun, fieldValidation.
 */
export function writeOptions(query: URLSearchParams, kind: WriteOptionsKind, patch?: { apply: boolean }): { dryRun: boolean; directive: FieldValidationDirective } {
  const causes: StatusCause[] = [];
  const fieldManager = query.get('fieldManager') ?? '';
  if (patch !== undefined && !patch.apply && query.has('force')) {
    causes.push({ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' });
  }
  if (patch?.apply === true && fieldManager === '') {
    causes.push({ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' });
  }
  appendAll(causes, fieldManagerCauses(fieldManager));
  const dryRun = query.getAll('dryRun');
  appendAll(causes, dryRunCauses(dryRun));
  const fieldValidation = query.get('fieldValidation') ?? '';
  if (fieldValidation !== '' && fieldValidation !== 'Ignore' && fieldValidation !== 'Warn' && fieldValidation !== 'Strict') {
    causes.push({ reason: 'FieldValueNotSupported', field: 'fieldValidation', message: `Unsupported value: ${JSON.stringify(fieldValidation)}: supported values: "", "Ignore", "Strict", "Warn"` });
  }
  if (causes.length > 0) throw invalid(kind, '', causes, 'meta.k8s.io');
  return { dryRun: dryRun.length > 0, directive: fieldValidation === '' ? 'Warn' : fieldValidation as FieldValidationDirective };
}

/** A delete's `dryRun` alone (its other options are checked with DeleteOptions): only "All" exists, anything else is 422. */
export function parseDryRun(query: URLSearchParams, optionsKind: string): boolean {
  const values = query.getAll('dryRun');
  const causes = dryRunCauses(values);
  if (causes.length > 0) throw invalid(optionsKind, '', causes, 'meta.k8s.io');
  return values.length > 0;
}

/**
 * An int64 query option (`limit`, `timeoutSeconds`, a delete's `gracePeriodSeconds`) as
 * apimachinery's query conversion reads it with Go's `strconv.ParseInt`: absent is
 * undefined; anything else, an empty value too, must be a decimal integer in range, or is
 * 400 with Go's error.
 */
export function parseInteger(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const error = goParseInt64Error(value);
  if (error !== undefined) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: ${error}`);
  return Number(BigInt(value));
}

/**
 * The manager of a write for metadata.managedFields: `fieldManager`, else derived from the
 * User-Agent as upstream does. A given name must be at most 128 bytes of printable characters (422).
 */
export function fieldManagerOf(query: URLSearchParams, userAgent: string | undefined, optionsKind: string): string {
  const given = query.get('fieldManager') ?? '';
  const causes = fieldManagerCauses(given);
  if (causes.length > 0) throw invalid(optionsKind, '', causes, 'meta.k8s.io');
  return managerOrUserAgent(given, userAgent);
}

/** A pair Go's url.ParseQuery drops: one with a `;` (no longer a separator) or a `%` not followed by two hex digits. */
const droppedPair = /;|%(?![0-9a-fA-F]{2})/;

/**
 * A query string read as Go's url.ParseQuery reads it for kube-apiserver's handlers: a pair
 * with a malformed escape or a semicolon is dropped (`?watch=%zz` is a list there), where
 * URLSearchParams keeps it as written. Everything else decodes alike.
 */
export function goQuery(raw: string): URLSearchParams {
  if (!droppedPair.test(raw)) return new URLSearchParams(raw);
  return new URLSearchParams(raw.split('&').filter((pair) => !droppedPair.test(pair)).join('&'));
}
