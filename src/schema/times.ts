// Where a built-in type holds metav1.Time and metav1.MicroTime values (references to
// either definition: every object's creationTimestamp and managedFields' times,
// conditions, an Event's timestamps, a Lease's renew time), compiled once per schema.
// Decoding into the Go type parses each string with Go's time.Parse: one it cannot parse
// fails the request (400), and each is written back in UTC at the type's precision. The
// schema (a string, format date-time) does neither, and a stored "garbage" time failed
// every Go client's list of the type afterwards.

import { canonicalGoMicroTime, canonicalGoTime } from '../api/go-time.ts';
import { canonicalizeStrings, compileKinds, type Canonical, type SiteKind, type Sites } from './go-sites.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

const timeDefinition = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const microTimeDefinition = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';

const refersTo = (definition: string) => (schema: Schema) => schema.$ref !== undefined && refName(schema.$ref) === definition;
const timeKind: SiteKind = { name: 'time', is: refersTo(timeDefinition) };
const microTimeKind: SiteKind = { name: 'microtime', is: refersTo(microTimeDefinition) };

/** A type's sites of both kinds, each with how its strings are read. */
export type TimeSites = readonly (readonly [Sites, Canonical])[];

/** The time sites of a schema, or undefined when it holds none. */
export function timeSites(defs: Definitions, schema: Schema): TimeSites | undefined {
  return compileKinds(defs, schema, [[timeKind, canonicalTime], [microTimeKind, canonicalMicroTime]]);
}

/**
 * Longest text remembered: a time is at most 35 characters, and a client's long string
 * (with its longer parse error) kept 1024 times over filled the heap.
 */
const rememberedTextMax = 64;

/** Results for the strings met lately: an object's times are mostly one second's, written by the server. */
function remembered(canonical: Canonical): Canonical {
  const results = new Map<string, ReturnType<Canonical>>();
  return (text) => {
    if (text.length > rememberedTextMax) return canonical(text);
    let result = results.get(text);
    if (result === undefined) {
      result = canonical(text);
      if (results.size >= 1024) results.clear();
      results.set(text, result);
    }
    return result;
  };
}

// Shared by every type: the server's own times repeat across them.
const canonicalTime = remembered(canonicalGoTime);
const canonicalMicroTime = remembered(canonicalGoMicroTime);

/** Writes every time string at the sites as Go writes it back; answers Go's parse error of the first it cannot read. */
export function canonicalizeTimes(sites: TimeSites, value: unknown): string | undefined {
  for (const [walk, canonical] of sites) {
    const error = canonicalizeStrings(walk, value, canonical);
    if (error !== undefined) return error;
  }
  return undefined;
}
