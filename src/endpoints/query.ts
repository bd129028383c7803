// Query parameters every write shares (dryRun, fieldManager, fieldValidation), and the
// query string read as Go reads it.
import { badRequest, invalid, type StatusCause } from '../api/index.ts';
import { managerOrUserAgent } from '../registry/field-manager.ts';
import type { FieldValidationDirective } from '../registry/field-validation.ts';
import { goParseInt64Error } from './request-info.ts';

/** The write options upstream validates as one list (ValidateCreateOptions, ValidateUpdateOptions, ValidatePatchOptions). */
type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

function isWriteOptionsKind(kind: string): kind is WriteOptionsKind {
  return kind === 'CreateOptions' || kind === 'UpdateOptions' || kind === 'PatchOptions';
}

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

/**
 * A write's options checked together, in upstream's order, all refusals in one 422 (its
 * Validate*Options): for a patch first `force` (only for apply) or a missing fieldManager
 * (apply needs one), then fieldManager, dryRun, fieldValidation.
 */
export function checkWriteOptions(query: URLSearchParams, kind: WriteOptionsKind, patch?: { apply: boolean }): void {
  const causes: StatusCause[] = [];
  const fieldManager = query.get('fieldManager') ?? '';
  if (patch !== undefined && !patch.apply && query.has('force')) {
    causes.push({ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' });
  }
  if (patch?.apply === true && fieldManager === '') {
    causes.push({ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' });
  }
  causes.push(...fieldManagerCauses(fieldManager));
  const dryRun = query.getAll('dryRun');
  if (dryRun.some((v) => v !== 'All')) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${goStringSlice(dryRun)}: supported values: "All"` });
  }
  const fieldValidation = query.get('fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(fieldValidation)) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'fieldValidation', message: `Unsupported value: ${JSON.stringify(fieldValidation)}: supported values: "", "Ignore", "Strict", "Warn"` });
  }
  if (causes.length > 0) throw invalid(kind, '', causes, 'meta.k8s.io');
}

/** `dryRun`: only "All" exists; anything else is 422 like upstream (with the write's other options, checked together). */
export function parseDryRun(query: URLSearchParams, optionsKind: string): boolean {
  if (isWriteOptionsKind(optionsKind)) checkWriteOptions(query, optionsKind);
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) {
    throw invalid(optionsKind, '', [{ reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${goStringSlice(values)}: supported values: "All"` }], 'meta.k8s.io');
  }
  return values.length > 0;
}

/** `fieldValidation`: Ignore, Warn (default) or Strict; anything else is 422. */
export function parseFieldValidation(query: URLSearchParams, optionsKind: string): FieldValidationDirective {
  if (isWriteOptionsKind(optionsKind)) checkWriteOptions(query, optionsKind);
  const value = query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw invalid(optionsKind, '', [{
    reason: 'FieldValueNotSupported', field: 'fieldValidation',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
  }], 'meta.k8s.io');
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
