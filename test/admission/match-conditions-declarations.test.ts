// Which variables a matchCondition may name when its configuration is written: `params`
// only for a policy with a paramKind, never for a webhook (upstream's allowParamsInMatchConditions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCel } from '../../src/cel/lazy.ts';
import { validateMatchConditions } from '../../src/registry/builtin/admission-rules.ts';

await loadCel();

const undeclaredParams = "Invalid value: \"params != null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params != null\n | ^";

const cases: [string, boolean | undefined, string[]][] = [
  ['a webhook: params is undeclared', undefined, [`m[0].expression: ${undeclaredParams}`]],
  ['a policy without paramKind: params is undeclared', false, [`m[0].expression: ${undeclaredParams}`]],
  ['a policy with a paramKind: params is declared', true, []],
];
for (const [name, params, expected] of cases) {
  test(name, () => {
    const conditions = [{ name: 'c', expression: 'params != null' }];
    const causes = params === undefined ? validateMatchConditions(conditions, 'm') : validateMatchConditions(conditions, 'm', { params });
    assert.deepEqual(causes.map((c) => `${c.field}: ${c.message}`), expected);
  });
}
