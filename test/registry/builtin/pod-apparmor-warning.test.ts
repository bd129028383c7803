// The warning of a new Pod's deprecated AppArmor annotation, which upstream's PrepareForCreate
// gives (applyAppArmorVersionSkew): a create that reaches it carries the warning even when
// validation then refuses the Pod; a body its decoding refuses never reaches it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject } from '../../../src/api/index.ts';
import { builtinType, memoryStore, withWarnings } from '../../helpers/store.ts';

const pods = builtinType('pods');
const appArmorWarning = 'metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: deprecated since v1.30; use the "appArmorProfile" field instead';

function pod(container: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1', ...container }], ...spec },
  };
}

/** The status code a create answers (201 when it succeeds) and the warnings it sent. */
async function create(input: KubeObject): Promise<{ code: number; warnings: string[] }> {
  const { store } = memoryStore(pods);
  const { result: code, warnings } = await withWarnings(async () => {
    try {
      await store.create('default', input);
      return 201;
    } catch (err) {
      if (!isStatusError(err)) throw err;
      return err.code;
    }
  });
  return { code, warnings };
}

// A body Go cannot decode is refused (upstream answers 400 for each; which code Plinth gives is not this test's concern).
const refused = 'refused';

const cases: { name: string; input: KubeObject; code: number | typeof refused; warnings: string[] }[] = [
  { name: 'a valid Pod is warned of its annotation', input: pod({}), code: 201, warnings: [appArmorWarning] },
  { name: 'a Pod validation refuses is still warned (PrepareForCreate ran first)', input: pod({}, { activeDeadlineSeconds: -1 }), code: 422, warnings: [appArmorWarning] },
  { name: 'a string where an integer belongs fails decoding: no warning', input: pod({ ports: [{ containerPort: 'eighty' }] }), code: refused, warnings: [] },
  { name: 'an object where a quantity belongs fails decoding: no warning', input: pod({ resources: { limits: { cpu: {} } } }), code: refused, warnings: [] },
  { name: 'a quantity that does not parse fails decoding: no warning', input: pod({ resources: { limits: { cpu: 'abc' } } }), code: refused, warnings: [] },
];

for (const c of cases) {
  test(`create of a Pod with an AppArmor annotation: ${c.name}`, async () => {
    const { code, warnings } = await create(c.input);
    if (c.code === refused) assert.ok(code >= 400, `answered ${code}`);
    else assert.equal(code, c.code);
    assert.deepEqual(warnings, c.warnings);
  });
}
