// x-kubernetes-validations on a served CRD: rules that do not compile refuse the CRD;
// custom resources that break a rule are refused with the rule's message, reason and
// field path; transition rules compare with the stored object; unchanged invalid values
// ratchet (a warning, not an error); status writes are checked too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const base = '/apis/rules.example.com/v1/namespaces/default/widgets';

function widgetCrd(specRules: unknown[], extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.rules.example.com' },
    spec: {
      group: 'rules.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': specRules,
                properties: {
                  minReplicas: { type: 'integer' },
                  maxReplicas: { type: 'integer' },
                  name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')", message: 'must be lowercase letters' }] },
                  memory: { type: 'string', 'x-kubernetes-validations': [{ rule: "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))", messageExpression: "'memory ' + self + ' is 1Gi or more'" }] },
                  mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
                  tags: { type: 'array', maxItems: 10, items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(t, t.size() <= 5)', reason: 'FieldValueForbidden', message: 'tags are at most 5 characters' }] },
                  'dash-name': { type: 'integer' },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.ready >= 0', message: 'ready cannot be negative' }] },
            },
            ...extra,
          },
        },
      }],
    },
  };
}

describe('CRD validation rules', () => {
  let server: TestServer;
  const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'rules.example.com/v1', kind: 'Widget', metadata: { name }, spec });

  before(async () => {
    server = await startServer();
    const crd = widgetCrd([
      { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas cannot be larger than maxReplicas' },
      { rule: "!has(self.dash__dash__name) || self.dash__dash__name > 0", fieldPath: "['dash-name']", reason: 'FieldValueRequired', message: 'dash-name must be positive' },
    ]);
    const created = await server.request('POST', crdsPath, { body: crd });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => assert.equal((await server.request('GET', base)).status, 200));
  });
  after(() => server?.stop());

  test('a rule that does not compile refuses the CRD with 422', async () => {
    const crd = widgetCrd([{ rule: 'self.minReplicas <=' }]);
    crd.metadata.name = 'gadgets.rules.example.com';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    const res = await server.request('POST', crdsPath, { body: crd });
    assert.equal(res.status, 422, res.text);
    const cause = res.json.details.causes[0];
    assert.equal(cause.field, 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    // The bad value is the internal apiextensions.ValidationRule, json.Marshal'd (`<` escaped as Go does).
    const rule = '{"Rule":"self.minReplicas \\u003c=","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}';
    assert.ok(cause.message.startsWith(`Invalid value: ${rule}: compilation failed: ERROR: <input>: `), cause.message);
    // A rule that is not a bool, and a messageExpression that does not compile.
    const notBool = widgetCrd([{ rule: "'text'" }, { rule: 'true', messageExpression: '1 +' }]);
    notBool.metadata.name = 'gadgets.rules.example.com';
    notBool.spec.names = crd.spec.names;
    const both = await server.request('POST', crdsPath, { body: notBool });
    assert.equal(both.status, 422, both.text);
    const messages = both.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
    assert.deepEqual(messages, [
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"\'text\'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: cel expression must evaluate to a bool',
      messages[1],
    ]);
    assert.ok(messages[1].startsWith('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression: Invalid value: {"Rule":"true","Message":"","MessageExpression":"1 +","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>: '), messages[1]);
  });

  test('a rule reading a field the schema does not have refuses the CRD (cel-go\'s undefined field)', async () => {
    const crd = widgetCrd([{ rule: 'self.minReplica <= self.maxReplicas' }, { rule: "self.name != '' || has(self.metadata)" }]);
    crd.metadata.name = 'gadgets.rules.example.com';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    // The root may read apiVersion, kind and metadata.name; not metadata.labels.
    crd.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = [{ rule: "self.metadata.name.startsWith('g') && self.kind == 'Gadget'" }, { rule: "size(self.metadata.labels) < 5" }];
    const res = await server.request('POST', crdsPath, { body: crd });
    assert.equal(res.status, 422, res.text);
    const messages = res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message.replace(/^Invalid value: \{"Rule":.*?"OptionalOldSelf":null\}: /, '')}`);
    assert.deepEqual(messages, [
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:5: undefined field 'minReplica'\n | self.minReplica <= self.maxReplicas\n | ....^",
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: compilation failed: ERROR: <input>:1:28: undefined field 'metadata'\n | self.name != '' || has(self.metadata)\n | ...........................^",
      // A node's rules are compiled after those of the nodes under it (upstream's schema walk).
      "spec.validation.openAPIV3Schema.x-kubernetes-validations[1].rule: compilation failed: ERROR: <input>:1:19: undefined field 'labels'\n | size(self.metadata.labels) < 5\n | ..................^",
    ]);
  });

  test('a rule that does not type-check against its schema refuses the CRD, in cel-go\'s words', async () => {
    const crd = widgetCrd([{ rule: 'self.minReplicas == true' }, { rule: "self.name + 1 == 'a1'" }, { rule: 'self.minReplicas' }, { rule: 'true', messageExpression: 'self.maxReplicas' }]);
    crd.metadata.name = 'gizmos.rules.example.com';
    crd.spec.names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' };
    const res = await server.request('POST', crdsPath, { body: crd });
    assert.equal(res.status, 422, res.text);
    const messages = res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message.replace(/^Invalid value: \{"Rule":.*?"OptionalOldSelf":null\}: /, '')}`);
    assert.deepEqual(messages, [
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, bool)'\n | self.minReplicas == true\n | .................^",
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: compilation failed: ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(string, int)'\n | self.name + 1 == 'a1'\n | ..........^",
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[2].rule: compilation failed: cel expression must evaluate to a bool',
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3].messageExpression: must evaluate to a string',
    ]);
    // The same rules against a schema where they are well typed are accepted.
    const ok = widgetCrd([{ rule: "self.name + '1' == 'a1'" }, { rule: 'true', messageExpression: 'string(self.maxReplicas)' }]);
    ok.metadata.name = 'gizmos.rules.example.com';
    ok.spec.names = crd.spec.names;
    const created = await server.request('POST', crdsPath, { body: ok });
    assert.equal(created.status, 201, created.text);
  });

  test('a rule whose estimated cost exceeds the budget refuses the CRD, as upstream', async () => {
    const crd = widgetCrd([]);
    crd.metadata.name = 'gadgets.rules.example.com';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    // A regex over 100,000 strings of up to 1,000 characters: about twice the 10,000,000 one rule may cost
    // (cel-go's estimate: each string's length and one, a tenth, times a quarter of the regex's).
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags = {
      type: 'array', maxItems: 100_000, items: { type: 'string', maxLength: 1000 }, 'x-kubernetes-validations': [{ rule: "self.all(t, t.matches('^[a-z]+$'))" }],
    };
    const refused = await server.request('POST', crdsPath, { body: crd });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.json.details.causes.map((c: { reason: string; field: string }) => [c.reason, c.field]), [
      ['FieldValueForbidden', 'spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule'],
    ]);
    // apiextensions' wording (getCostErrorMessage): "the rule", not "the rule(s)".
    assert.match(refused.json.details.causes[0].message, /^Forbidden: estimated rule cost exceeds budget by factor of 2\.\dx \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/);
    // Without maxItems the list may hold a million strings: checking each one's length fits (upstream's estimate:
    // about six units each), checking each against each other does not: more than 100 times the budget.
    const unbounded = widgetCrd([]);
    unbounded.metadata.name = 'gadgets.rules.example.com';
    unbounded.spec.names = crd.spec.names;
    delete unbounded.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags.maxItems;
    const fits = await server.request('POST', crdsPath, { body: unbounded });
    assert.equal(fits.status, 201, fits.text);
    assert.equal((await server.request('DELETE', `${crdsPath}/gadgets.rules.example.com`)).status, 200);
    await eventually(async () => assert.equal((await server.request('GET', `${crdsPath}/gadgets.rules.example.com`)).status, 404));
    const nested = widgetCrd([{ rule: 'self.tags.all(a, self.tags.all(b, a == b))' }]);
    nested.metadata.name = 'gadgets.rules.example.com';
    nested.spec.names = crd.spec.names;
    delete nested.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags.maxItems;
    const worse = await server.request('POST', crdsPath, { body: nested });
    assert.equal(worse.status, 422, worse.text);
    assert.ok(worse.json.details.causes.some((c: { message: string }) => c.message.includes('by factor of more than 100x')), worse.text);
    // A map's keys have no size of their own in the estimate (upstream sizes them 0): Gateway API's
    // annotation rules over 16 properties of values up to 4 KiB fit.
    const keyed = widgetCrd([]);
    keyed.metadata.name = 'gadgets.rules.example.com';
    keyed.spec.names = crd.spec.names;
    keyed.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.annotations = {
      type: 'object', maxProperties: 16, additionalProperties: { type: 'string', minLength: 0, maxLength: 4096 },
      'x-kubernetes-validations': [
        { rule: 'self.all(key, key.matches(r"""^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$"""))' },
        { rule: 'self.all(key, key.split("/")[0].size() < 253)' },
      ],
    };
    // Karpenter's reserved resources: any number of quantities, each key one of four and no value negative.
    keyed.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.reserved = {
      type: 'object', additionalProperties: { type: 'string', pattern: '^[0-9]+[a-zA-Z]*$' },
      'x-kubernetes-validations': [
        { rule: "self.all(x, x=='cpu' || x=='memory' || x=='ephemeral-storage' || x=='pid')" },
        { rule: "self.all(x, !self[x].startsWith('-'))" },
      ],
    };
    const accepted = await server.request('POST', crdsPath, { body: keyed });
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal((await server.request('DELETE', `${crdsPath}/gadgets.rules.example.com`)).status, 200);
  });

  test('the runtime budget stops evaluation of an object whose rules cost too much in all', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'grids.rules.example.com' },
      spec: {
        group: 'rules.example.com', scope: 'Namespaced', names: { plural: 'grids', singular: 'grid', kind: 'Grid', listKind: 'GridList' },
        versions: [{
          name: 'v1', served: true, storage: true,
          // A rule's estimate counts each time it can run (upstream's getExpressionCost): some 33,000
          // per list of 64, times 300 lists, fits one rule's 10,000,000; two such rules fit the
          // schema's 100,000,000 in all, but not the 10,000,000 one object's rules may cost.
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { rows: {
            type: 'array', maxItems: 300,
            items: {
              type: 'array', maxItems: 64, items: { type: 'string', maxLength: 1 },
              'x-kubernetes-validations': [{ rule: 'self.all(a, self.all(b, a == b || a != b))' }, { rule: 'self.all(a, self.all(b, a != b || a == b))' }],
            },
          } } } } } },
        }],
      },
    };
    assert.equal((await server.request('POST', crdsPath, { body: crd })).status, 201, 'each rule and the total fit the static limits');
    const grids = '/apis/rules.example.com/v1/namespaces/default/grids';
    await eventually(async () => assert.equal((await server.request('GET', grids)).status, 200));
    const grid = (name: string, rows: number) => ({ apiVersion: 'rules.example.com/v1', kind: 'Grid', metadata: { name }, spec: { rows: Array.from({ length: rows }, () => Array(64).fill('a')) } });
    assert.equal((await server.request('POST', grids, { body: grid('small', 100) })).status, 201);
    const big = await server.request('POST', grids, { body: grid('big', 300) });
    assert.equal(big.status, 422, big.text);
    assert.equal(big.json.details.causes.length, 1);
    assert.match(big.json.details.causes[0].field, /^spec\.rows\[\d+\]$/);
    assert.equal(big.json.details.causes[0].message, 'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run');
  });

  test('an object that keeps the rules is created', async () => {
    const res = await server.request('POST', base, { body: widget('good', { minReplicas: 1, maxReplicas: 3, name: 'abc', memory: '512Mi', mode: 'a', tags: ['x'], 'dash-name': 2 }) });
    assert.equal(res.status, 201, res.text);
  });

  test('each broken rule is a cause with its message, reason and path', async () => {
    const res = await server.request('POST', base, { body: widget('bad', { minReplicas: 5, maxReplicas: 3, name: 'ABC', memory: '2Gi', tags: ['toolong'], 'dash-name': -1 }) });
    assert.equal(res.status, 422, res.text);
    const causes = res.json.details.causes.map((c: { reason: string; field: string; message: string }) => [c.reason, c.field, c.message]);
    assert.deepEqual(causes.sort(), [
      ['FieldValueForbidden', 'spec.tags', 'Forbidden: tags are at most 5 characters'],
      ['FieldValueInvalid', 'spec', 'Invalid value: minReplicas cannot be larger than maxReplicas'],
      ['FieldValueInvalid', 'spec.memory', 'Invalid value: "2Gi": memory 2Gi is 1Gi or more'],
      ['FieldValueInvalid', 'spec.name', 'Invalid value: "ABC": must be lowercase letters'],
      ['FieldValueRequired', 'spec.dash-name', 'Required value: dash-name must be positive'],
    ].sort());
    assert.match(res.json.message, /^Widget\.rules\.example\.com "bad" is invalid: \[/);
  });

  test('a transition rule compares with the stored value, and only on update', async () => {
    const created = await server.request('POST', base, { body: widget('moded', { minReplicas: 1, maxReplicas: 1, mode: 'first' }) });
    assert.equal(created.status, 201, created.text);
    const patch = (spec: unknown) => server.request('PATCH', `${base}/moded`, { raw: JSON.stringify({ spec }), headers: { 'content-type': 'application/merge-patch+json' } });
    const changed = await patch({ mode: 'second' });
    assert.equal(changed.status, 422, changed.text);
    assert.deepEqual(changed.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec.mode', message: 'Invalid value: "second": mode is immutable' }]);
    assert.equal((await patch({ maxReplicas: 2 })).status, 200);
  });

  test('a value the update leaves unchanged ratchets: the update passes with a warning', async () => {
    // Stored before the rule tightened: the CRD now wants names of at most 3 letters.
    const stored = await server.request('POST', base, { body: widget('ratchet', { minReplicas: 1, maxReplicas: 1, name: 'abcdef' }) });
    assert.equal(stored.status, 201, stored.text);
    const crd = (await server.request('GET', `${crdsPath}/widgets.rules.example.com`)).json;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name['x-kubernetes-validations'].push({ rule: 'self.size() <= 3', message: 'at most 3 letters' });
    assert.equal((await server.request('PUT', `${crdsPath}/widgets.rules.example.com`, { body: crd })).status, 200);
    const patch = (spec: unknown) => server.request('PATCH', `${base}/ratchet`, { raw: JSON.stringify({ spec }), headers: { 'content-type': 'application/merge-patch+json' } });
    await eventually(async () => {
      const unchanged = await patch({ maxReplicas: 2 });
      assert.equal(unchanged.status, 200, unchanged.text);
      assert.equal(unchanged.headers.warning, '299 - "spec.name: Invalid value: \\"abcdef\\": at most 3 letters"');
    });
    const changed = await patch({ name: 'abcdefg' });
    assert.equal(changed.status, 422, changed.text);
    assert.equal(changed.json.details.causes[0].message, 'Invalid value: "abcdefg": at most 3 letters');
  });

  test('set and map lists compare and concatenate by their list type', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'lists.rules.example.com' },
      spec: {
        group: 'rules.example.com', scope: 'Namespaced', names: { plural: 'lists', singular: 'list', kind: 'List', listKind: 'ListList' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: {
            type: 'object',
            properties: {
              tags: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10 } },
              ports: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } } } },
              order: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
            },
            'x-kubernetes-validations': [
              { rule: '!has(oldSelf.tags) || self.tags == oldSelf.tags', message: 'tags are immutable (in any order)' },
              { rule: '!has(oldSelf.ports) || self.ports == oldSelf.ports', message: 'ports are immutable (in any order)' },
              { rule: '!has(oldSelf.order) || self.order == oldSelf.order', message: 'order is immutable, order included' },
              { rule: "!has(self.tags) || (self.tags + ['base']).size() <= 3", message: 'at most 3 tags with base' },
            ],
          } } } },
        }],
      },
    };
    assert.equal((await server.request('POST', crdsPath, { body: crd })).status, 201);
    const lists = '/apis/rules.example.com/v1/namespaces/default/lists';
    await eventually(async () => assert.equal((await server.request('GET', lists)).status, 200));
    const created = await server.request('POST', lists, { body: { apiVersion: 'rules.example.com/v1', kind: 'List', metadata: { name: 'l' }, spec: { tags: ['a', 'base'], ports: [{ name: 'http', port: 80 }, { name: 'tls', port: 443 }], order: ['x', 'y'] } } });
    assert.equal(created.status, 201, created.text);
    const put = async (spec: unknown) => {
      const current = (await server.request('GET', `${lists}/l`)).json;
      return server.request('PUT', `${lists}/l`, { body: { ...current, spec } });
    };
    // The same set and map in another order: equal. A plain list in another order: not.
    assert.equal((await put({ tags: ['base', 'a'], ports: [{ name: 'tls', port: 443 }, { name: 'http', port: 80 }], order: ['x', 'y'] })).status, 200);
    const reordered = await put({ tags: ['base', 'a'], ports: [{ name: 'tls', port: 443 }, { name: 'http', port: 80 }], order: ['y', 'x'] });
    assert.equal(reordered.status, 422, reordered.text);
    assert.deepEqual(reordered.json.details.causes.map((c: { message: string }) => c.message), ['Invalid value: order is immutable, order included']);
    const changed = await put({ tags: ['base', 'b'], ports: [{ name: 'tls', port: 8443 }, { name: 'http', port: 80 }], order: ['x', 'y'] });
    assert.deepEqual(changed.json.details.causes.map((c: { message: string }) => c.message).sort(), ['Invalid value: ports are immutable (in any order)', 'Invalid value: tags are immutable (in any order)']);
    // + on a set adds only new elements: ['a', 'base'] + ['base'] has 2, not 3.
    const fresh = await server.request('POST', lists, { body: { apiVersion: 'rules.example.com/v1', kind: 'List', metadata: { name: 'm' }, spec: { tags: ['a', 'b', 'base'] } } });
    assert.equal(fresh.status, 201, fresh.text);
  });

  test('status writes are checked against the status rules', async () => {
    assert.equal((await server.request('POST', base, { body: widget('statused', { minReplicas: 1, maxReplicas: 1 }) })).status, 201);
    const current = (await server.request('GET', `${base}/statused`)).json;
    const bad = await server.request('PUT', `${base}/statused/status`, { body: { ...current, status: { ready: -1 } } });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(bad.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'status', message: 'Invalid value: ready cannot be negative' }]);
    assert.equal((await server.request('PUT', `${base}/statused/status`, { body: { ...current, status: { ready: 1 } } })).status, 200);
  });
});
