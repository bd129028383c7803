// --controllers in kube-controller-manager's syntax, for Plinth's own controllers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerEnabled, parseControllers } from '../../src/cli/controllers-flag.ts';

test('which controllers a --controllers value runs: *, names, -names (first match wins), aliases', () => {
  const gc = 'garbage-collector-controller';
  const ns = 'namespace-controller';
  const cases: Array<[string, string, boolean]> = [
    ['*', gc, true],
    ['*,-garbagecollector', gc, false],
    ['*,-garbagecollector', ns, true],
    ['-garbage-collector-controller,*', gc, false],
    ['garbagecollector,-garbagecollector', gc, true],
    ['namespace', ns, true],
    ['namespace', gc, false],
    ['', gc, false],
  ];
  for (const [flag, name, expected] of cases) assert.equal(controllerEnabled(parseControllers(flag), name), expected, `${flag} → ${name}`);
});

test('a controller Plinth does not run is refused with the list of those it does', () => {
  assert.throws(() => parseControllers('*,-deployment-controller'), /"deployment-controller" is not in the list of known controllers: namespace-controller, .*garbage-collector-controller/);
  assert.throws(() => parseControllers('bogus'), /"bogus" is not in the list/);
});
