// What the main thread and the apply worker send each other (client.ts, worker.ts).
import type { RequestUser } from '../../api/request-context.ts';
import type { KeyValue } from '../../storage/backend.ts';
import type { FieldValidationDirective } from '../field-validation.ts';

/** The types whose applies go to the worker (`group/resource`): built-in workloads, whose strategies need no other state. */
export const offloadedResources: ReadonlySet<string> = new Set(['apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs', 'batch/cronjobs']);

/** How many answers' objects the worker keeps, and the main thread remembers as stored, by key (the least recent go first). */
export const keptAnswers = 256;

export interface OffloadedApply {
  id: number;
  /** `group/resource` of a built-in type. */
  resource: string;
  namespace: string;
  name: string;
  /**
   * The stored object the apply starts from (the watch cache's copy); its bytes only when
   * the worker may not have the object (no `fromAnswer`, or it answered `missing`).
   */
  current: Omit<KeyValue, 'value'> & { value?: Uint8Array };
  /** The worker's answer whose bytes `current` is, when the main thread stored them: the worker may use the object it wrote. */
  fromAnswer: number | undefined;
  configuration: OffloadedConfiguration;
  fieldManager: string;
  force: boolean;
  directive: FieldValidationDirective;
  user: RequestUser;
  /** The request's `allowPrivileged` (request-context.ts): the worker validates under the same policy. */
  allowPrivileged: boolean;
}

/**
 * The apply configuration: decoded, with the fields its body gave twice, or still the
 * request's body (YAML or JSON, its own bytes), which the worker decodes and checks as the
 * PATCH handler would (a body that does not decode, or names another object, is not done).
 */
export type OffloadedConfiguration = { value: unknown; duplicateFields: string[] } | { body: Uint8Array };

/** The worker tells once it has loaded the types: until then the main thread applies. */
export interface OffloadReady {
  ready: true;
}

/**
 * The bytes to store, the warnings the apply made, whether it started from the object the
 * worker kept, and the written object's metadata view (metadataViewJson, when the worker
 * had the object); or not done, and the main thread applies.
 */
export type OffloadAnswer =
  | { id: number; done: true; written: Uint8Array; warnings: string[]; reused: boolean; metadataView: string | undefined }
  /** `missing`: sent without its bytes, for an answer whose object the worker no longer keeps; send them. */
  | { id: number; done: false; missing?: true };
