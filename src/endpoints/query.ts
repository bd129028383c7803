// Query parameters every write shares (dryRun, fieldManager, fieldValidation), and the
// query string read as Go reads it.
import { badRequest, invalid, type StatusCause } from '../api/index.ts';
import { managerOrUserAgent } from '../registry/field-manager.ts';
import type { FieldValidationDirective } from '../registry/field-validation.ts';
import { goParseInt64Error } from './request-info.ts';

/** `dryRun`: only "All" exists; anything else is 422 like upstream. */
export function parseDryRun(query: URLSearchParams, optionsKind: string): boolean {
  const values = query.getAll('dryRun');
  const causes: StatusCause[] = values
    .filter((v) => v !== 'All')
    .map((v) => ({ reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: "${v}": supported values: "All"` }));
  if (causes.length > 0) throw invalid(optionsKind, '', causes, 'meta.k8s.io');
  return values.length > 0;
}

/** `fieldValidation`: Ignore, Warn (default) or Strict; anything else is 422. */
export function parseFieldValidation(query: URLSearchParams, optionsKind: string): FieldValidationDirective {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw invalid(optionsKind, '', [{
    reason: 'FieldValueNotSupported', field: 'fieldValidation',
    message: `Unsupported value: "${value}": supported values: "Ignore", "Strict", "Warn"`,
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
 * User-Agent as upstream does. A given name must be at most 128 printable characters (422).
 */
export function fieldManagerOf(query: URLSearchParams, userAgent: string | undefined, optionsKind: string): string {
  const given = query.get('fieldManager') ?? '';
  if (given.length > 128) {
    throw invalid(optionsKind, '', [{ reason: 'FieldValueTooLong', field: 'fieldManager', message: `Too long: may not be more than 128 bytes` }], 'meta.k8s.io');
  }
  if (/[^\x20-\x7e]/.test(given)) {
    throw invalid(optionsKind, '', [{ reason: 'FieldValueInvalid', field: 'fieldManager', message: `Invalid value: ${JSON.stringify(given)}: must only contain printable characters` }], 'meta.k8s.io');
  }
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
