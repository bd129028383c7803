// Why a patch could not be applied, classified the way kube-apiserver answers it.
// The pure patch functions throw PatchError; `toStatusError` turns it into the Status
// upstream sends, which for 422 and 500 is not the detailed message (see below).

import { StatusError } from '../api/errors.ts';

/**
 * - 400: the patch is not of the patch type's form (not a JSON array of operations, a
 *   strategic-merge directive of the wrong shape);
 * - 413: more JSON Patch operations than upstream's maxJSONPatchOperations;
 * - 422: the patch does not apply to this object (a failing `test`, a path that is not
 *   there, lists of lists);
 * - 500: strategic merge patch errors upstream does not classify (a missing merge key,
 *   an unknown `$patch` value), which kube-apiserver answers as an unknown error.
 */
export type PatchErrorCode = 400 | 413 | 422 | 500;

export class PatchError extends Error {
  readonly code: PatchErrorCode;

  constructor(code: PatchErrorCode, message: string) {
    super(message);
    this.name = 'PatchError';
    this.code = code;
  }
}

export function isPatchError(err: unknown): err is PatchError {
  return err instanceof PatchError;
}

/**
 * The Status kube-apiserver answers for this failure:
 * - 400 BadRequest with the message;
 * - 413 RequestEntityTooLarge, "Request entity too large: " + message;
 * - 422 Invalid with the generic message and empty details of
 *   NewGenericServerResponse: upstream drops the detail (json-patch's "testing value
 *   /x failed" never reaches the client), and clients that match on this body expect it;
 * - 500 with no reason and the message, as an error that is not a Status becomes.
 */
export function toStatusError(err: PatchError): StatusError {
  switch (err.code) {
    case 400:
      return new StatusError(400, 'BadRequest', err.message);
    case 413:
      return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${err.message}`);
    case 422:
      return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    case 500:
      return new StatusError(500, '', err.message);
  }
}
