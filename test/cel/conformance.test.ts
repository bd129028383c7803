// The CEL conformance suite (google/cel-spec's simple tests, as @bufbuild/cel-spec
// ships them) against Plinth's CEL environment, for the features Kubernetes enables:
// the standard library, optional types, bindings, two-variable comprehensions and the
// strings extension. Tests that need protobuf messages (TestAllTypes, wrappers, Any)
// are left out: Kubernetes' CEL has none. The evaluator's known differences are listed
// in fixtures/conformance-known-failures.json by suite and name; the test fails when a
// listed test starts passing (take it off the list) or an unlisted one fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import { compile } from '../../src/cel/environment.ts';

const suites = [
  'basic', 'bindings_ext', 'comparisons', 'conversions', 'fields', 'fp_math', 'integer_math', 'lists', 'logic', 'macros', 'macros2',
  'optionals', 'parse', 'plumbing', 'string', 'string_ext', 'timestamps',
];
const knownFailuresFile = path.join(import.meta.dirname, 'fixtures/conformance-known-failures.json');
const knownFailures: Record<string, string[]> = JSON.parse(readFileSync(knownFailuresFile, 'utf8'));
// CEL_CONFORMANCE_RECORD=1 rewrites the list from this run (after an evaluator upgrade; review the diff).
const record = process.env.CEL_CONFORMANCE_RECORD === '1';

interface Serialized {
  name: string;
  suites?: Serialized[];
  tests?: { original: Record<string, any> & { name?: string; expr: string } }[];
}

class Unsupported extends Error {}

/** A conformance Value in the form the evaluator gives or takes. */
function valueOf(v: Record<string, any>): unknown {
  if ('int64Value' in v) return BigInt(v.int64Value);
  if ('uint64Value' in v) return { uint: BigInt(v.uint64Value) };
  if ('doubleValue' in v) return typeof v.doubleValue === 'string' ? Number(v.doubleValue) : v.doubleValue;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('nullValue' in v) return null;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(v.bytesValue, 'base64'));
  if ('listValue' in v) return (v.listValue.values ?? []).map(valueOf);
  if ('mapValue' in v) return new Map((v.mapValue.entries ?? []).map((e: Record<string, any>) => [valueOf(e.key), valueOf(e.value)]));
  throw new Unsupported(`a ${Object.keys(v)[0]} value`);
}

/** An evaluator result in the same form: uints as { uint }, lists and maps recursively. */
function normalize(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && v.constructor?.name === 'UnsignedInteger') return { uint: (v as { valueOf(): bigint }).valueOf() };
  if (Array.isArray(v)) return v.map(normalize);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [normalize(k), normalize(x)]));
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return new Map(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
  }
  return v;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** Runs one test: undefined when it passed, else why not. */
function run(t: Record<string, any> & { expr: string }): string | undefined {
  if (t.container !== undefined || t.typeEnv !== undefined || /TestAllTypes|google\.protobuf|proto[23]\./.test(t.expr)) throw new Unsupported('protobuf messages');
  const bindings: Record<string, unknown> = {};
  const variables: Record<string, string> = {};
  for (const [name, binding] of Object.entries((t.bindings ?? {}) as Record<string, { value: Record<string, any> }>)) {
    const v = valueOf(binding.value);
    if (v !== null && typeof v === 'object' && 'uint' in v) throw new Unsupported('uint bindings');
    bindings[name] = v;
    variables[name] = 'dyn';
  }
  const compiled = compile(t.expr, variables);
  const wantsError = t.evalError !== undefined || t.anyEvalErrors !== undefined;
  if (compiled.program === undefined) return wantsError ? undefined : `does not compile: ${compiled.error}`;
  let got: unknown;
  try {
    got = normalize(compiled.program(bindings));
  } catch (err) {
    return wantsError ? undefined : `fails: ${(err as Error).message.split('\n')[0]}`;
  }
  if (wantsError) return `answers ${String(got)} where an error is expected`;
  const want = t.value === undefined ? true : valueOf(t.value);
  return sameValue(got, want) ? undefined : `answers ${String(got)}`;
}

function all(suite: Serialized): { original: Record<string, any> & { name?: string; expr: string } }[] {
  return [...(suite.tests ?? []), ...(suite.suites ?? []).flatMap(all)];
}

for (const suite of (tests as Serialized).suites ?? []) {
  if (!suites.includes(suite.name)) continue;
  test(`CEL conformance: ${suite.name}`, () => {
    const failing: string[] = [];
    const why: string[] = [];
    let ran = 0;
    for (const { original } of all(suite)) {
      let problem: string | undefined;
      try {
        problem = run(original);
      } catch (err) {
        if (err instanceof Unsupported) continue;
        problem = `throws ${(err as Error).message}`;
      }
      ran++;
      if (problem !== undefined) {
        failing.push(original.name ?? original.expr);
        why.push(`${original.name}: ${original.expr} ${problem}`);
      }
    }
    assert.ok(ran > 0, 'the suite ran');
    if (record) {
      const current: Record<string, string[]> = JSON.parse(readFileSync(knownFailuresFile, 'utf8'));
      if (failing.length > 0) current[suite.name] = failing;
      else delete current[suite.name];
      writeFileSync(knownFailuresFile, `${JSON.stringify(current, null, 1)}\n`);
      return;
    }
    const known = knownFailures[suite.name] ?? [];
    const newFailures = failing.filter((name) => !known.includes(name));
    assert.deepEqual(newFailures.map((name) => why[failing.indexOf(name)]), [], 'tests that fail and are not listed as known');
    assert.deepEqual(known.filter((name) => !failing.includes(name)), [], 'tests listed as failing that pass now');
  });
}
