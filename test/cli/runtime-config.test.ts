// --runtime-config read as kube-apiserver reads it: which served group versions and
// resources it turns off (or back on), and its refusals in upstream's words.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRuntimeConfig, runtimeConfigDisabled } from '../../src/cli/runtime-config.ts';

const served = [
  { group: '', version: 'v1', resource: 'pods' },
  { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: 'apps', version: 'v1', resource: 'daemonsets' },
  { group: 'batch', version: 'v1', resource: 'jobs' },
  { group: 'batch', version: 'v1', resource: 'cronjobs' },
  { group: 'example.test', version: 'v1beta1', resource: 'widgets' },
  { group: 'example.test', version: 'v1alpha1', resource: 'gadgets' },
];

const disabled = (...flags: string[]) => [...runtimeConfigDisabled(parseRuntimeConfig(flags), served)].sort();

test('the flag\'s pairs: comma-separated, repeatable, a bare key empty, spaces trimmed', () => {
  assert.deepEqual([...parseRuntimeConfig(['batch/v1=false, apps/v1', 'api/beta=false'])], [['batch/v1', 'false'], ['apps/v1', ''], ['api/beta', 'false']]);
});

test('group versions and resources turned off, the api/* keys first, then versions, then resources', () => {
  assert.deepEqual(disabled(), []);
  assert.deepEqual(disabled('batch/v1=false'), ['batch/v1/cronjobs', 'batch/v1/jobs']);
  assert.deepEqual(disabled('apps/v1/daemonsets=false'), ['apps/v1/daemonsets']);
  assert.deepEqual(disabled('api/beta=false'), ['example.test/v1beta1/widgets']);
  assert.deepEqual(disabled('api/alpha=false'), ['example.test/v1alpha1/gadgets']);
  // The core group stays; a version turned on again wins over api/all, a resource over its version.
  assert.deepEqual(disabled('api/all=false,batch/v1=true,batch/v1/cronjobs=false'), ['apps/v1/daemonsets', 'apps/v1/deployments', 'batch/v1/cronjobs', 'example.test/v1alpha1/gadgets', 'example.test/v1beta1/widgets']);
  assert.deepEqual(disabled('api/ga=false', '/v1=true'), ['apps/v1/daemonsets', 'apps/v1/deployments', 'batch/v1/cronjobs', 'batch/v1/jobs']);
  // Go's ParseBool, and an empty value is true; a version Plinth lacks may be turned off.
  assert.deepEqual(disabled('batch/v1=F,batch/v1/jobs', 'apps/v2=false'), ['batch/v1/cronjobs']);
});

test('refusals in upstream\'s words', () => {
  const refused: Array<[string, string]> = [
    ['api/all=false', 'invalid key with only api/all=false'],
    ['batch=false', 'runtime-config invalid key batch'],
    ['apps/v1/deployments/scale=false', 'runtime-config invalid key apps/v1/deployments/scale'],
    ['storage.example/v1=false,other.example/v1', 'unknown api groups storage.example,other.example'],
    ['api/all=maybe,batch/v1', 'invalid value api/all=maybe'],
    ['batch/v1=nope', 'invalid value of batch/v1: nope, err: strconv.ParseBool: parsing "nope": invalid syntax'],
    ['apps/v1/DaemonSets=false', 'invalid key apps/v1/DaemonSets: group/version/resource and resource is always lowercase plural, not "DaemonSets"'],
    ['batch/v2=true', 'group version batch/v2 is not served by Plinth (it serves v1)'],
    ['apps/v1/replicationcontrollers=true', 'replicationcontrollers in apps/v1 is not served by Plinth'],
    ['/v1=false', "runtime-config /v1: the core group's v1 is always served by Plinth"],
  ];
  for (const [flag, message] of refused) assert.throws(() => disabled(flag), (err) => (err as Error).message === message, flag);
});
