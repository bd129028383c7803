import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject, type TableColumn } from '../../src/api/index.ts';
import { negotiateObject } from '../../src/encoding/negotiate.ts';
import { buildTable, columnDefinitions, tableOptionsFromQuery } from '../../src/encoding/table.ts';

const kubectlAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('negotiating Tables', () => {
  const cases: { name: string; accept: string; opts?: { tables?: boolean; stream?: boolean }; table?: string; contentType?: string; status?: number }[] = [
    { name: "kubectl get's Accept answers a v1 Table", accept: kubectlAccept, table: 'meta.k8s.io/v1', contentType: 'application/json' },
    { name: 'v1beta1 alone answers a v1beta1 Table', accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', table: 'meta.k8s.io/v1beta1', contentType: 'application/json' },
    { name: 'parameter order does not matter', accept: 'application/json;g=meta.k8s.io;v=v1;as=Table', table: 'meta.k8s.io/v1', contentType: 'application/json' },
    { name: 'a YAML Table is served, as upstream', accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1', table: 'meta.k8s.io/v1', contentType: 'application/yaml' },
    { name: 'another version falls through to the next entry', accept: 'application/json;as=Table;g=meta.k8s.io;v=v2,application/json', contentType: 'application/json' },
    { name: 'another group falls through to the next entry', accept: 'application/json;as=Table;g=example.com;v=v1,application/yaml', contentType: 'application/yaml' },
    { name: 'as=Table without g and v falls through', accept: 'application/json;as=Table,application/json', contentType: 'application/json' },
    { name: 'a Table in protobuf is passed over', accept: 'application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json', contentType: 'application/json' },
    { name: 'only an unserved Table is 406', accept: 'application/json;as=Table;g=meta.k8s.io;v=v2', status: 406 },
    { name: 'a verb without Tables passes Table entries over', accept: kubectlAccept, opts: { tables: false }, contentType: 'application/json' },
    { name: 'a watch takes a JSON Table', accept: kubectlAccept, opts: { tables: true, stream: true }, table: 'meta.k8s.io/v1', contentType: 'application/json' },
    { name: 'a watch passes YAML over (YAML cannot stream)', accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1,application/json', opts: { tables: true, stream: true }, contentType: 'application/json' },
    { name: 'a watch asking only for YAML is 406', accept: 'application/yaml', opts: { tables: true, stream: true }, status: 406 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const opts = c.opts ?? { tables: true };
      if (c.status !== undefined) {
        assert.throws(() => negotiateObject(c.accept, opts), (err) => isStatusError(err) && err.code === c.status);
        return;
      }
      const n = negotiateObject(c.accept, opts);
      assert.equal(n.table?.apiVersion, c.table);
      assert.equal(n.contentType, c.contentType);
    });
  }
});

describe('Table options', () => {
  const cases: { query: string; includeObject?: string; error?: string }[] = [
    { query: '', includeObject: 'Metadata' },
    { query: 'includeObject=', includeObject: 'Metadata' },
    { query: 'includeObject=None', includeObject: 'None' },
    { query: 'includeObject=Metadata', includeObject: 'Metadata' },
    { query: 'includeObject=Object', includeObject: 'Object' },
    {
      query: 'includeObject=object',
      error: 'Unable to convert to Table as requested: includeObject: Unsupported value: "object": supported values: "", "Metadata", "None", "Object"',
    },
  ];
  for (const c of cases) {
    test(`"${c.query}" → ${c.includeObject ?? '400'}`, () => {
      const query = new URLSearchParams(c.query);
      if (c.error !== undefined) {
        assert.throws(() => tableOptionsFromQuery(query), (err) => isStatusError(err) && err.code === 400 && err.message === c.error);
        return;
      }
      assert.equal(tableOptionsFromQuery(query).includeObject, c.includeObject);
    });
  }
});

const columns: TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'the name', cell: (o) => o.metadata.name ?? '' },
  { name: 'Size', type: 'integer', cell: (o) => Object.keys((o.data as object | undefined) ?? {}).length },
  { name: 'Since', type: 'string', priority: 1, cell: (_o, now) => `${now}` },
];

const objects: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '5' }, data: { x: '1' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns', resourceVersion: '6' } },
];

describe('building a Table', () => {
  const base = { apiVersion: 'meta.k8s.io/v1', includeObject: 'Metadata' as const, metadata: { resourceVersion: '9' }, now: 42 };

  test('column definitions carry every field, zero values included', () => {
    assert.deepEqual(columnDefinitions(columns), [
      { name: 'Name', type: 'string', format: 'name', description: 'the name', priority: 0 },
      { name: 'Size', type: 'integer', format: '', description: '', priority: 0 },
      { name: 'Since', type: 'string', format: '', description: '', priority: 1 },
    ]);
  });

  test('one row per object, cells in column order, relative to now', () => {
    const table = buildTable({ columns }, objects, base);
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '9' });
    assert.deepEqual(table.rows!.map((r) => r.cells), [['a', 1, '42'], ['b', 0, '42']]);
  });

  test('the JSON has upstream key order', () => {
    const json = JSON.stringify(buildTable({ columns }, objects.slice(0, 1), base));
    assert.match(json, /^\{"kind":"Table","apiVersion":"meta\.k8s\.io\/v1","metadata":\{"resourceVersion":"9"\},"columnDefinitions":\[\{"name":"Name","type":"string","format":"name","description":"the name","priority":0\}/);
    assert.match(json, /"rows":\[\{"cells":\["a",1,"42"\],"object":\{"kind":"PartialObjectMetadata"/);
  });

  test('includeObject=Metadata: a PartialObjectMetadata of the Table\'s version', () => {
    for (const apiVersion of ['meta.k8s.io/v1', 'meta.k8s.io/v1beta1']) {
      const table = buildTable({ columns }, objects, { ...base, apiVersion });
      assert.deepEqual(table.rows![0]!.object, { kind: 'PartialObjectMetadata', apiVersion, metadata: objects[0]!.metadata });
    }
  });

  test('includeObject=Object: the whole object', () => {
    const table = buildTable({ columns }, objects, { ...base, includeObject: 'Object' });
    assert.deepEqual(table.rows!.map((r) => r.object), objects);
  });

  test('includeObject=None: object null, as upstream encodes an empty RawExtension', () => {
    const table = buildTable({ columns }, objects, { ...base, includeObject: 'None' });
    assert.deepEqual(table.rows!.map((r) => r.object), [null, null]);
  });

  test('noHeaders leaves columnDefinitions null', () => {
    assert.equal(buildTable({ columns }, objects, { ...base, noHeaders: true }).columnDefinitions, null);
  });

  test('an empty list has no rows and keeps its metadata', () => {
    const table = buildTable({ columns }, [], { ...base, metadata: { resourceVersion: '3', continue: 'abc', remainingItemCount: 2 } });
    assert.deepEqual(table.rows, []);
    assert.deepEqual(table.metadata, { resourceVersion: '3', continue: 'abc', remainingItemCount: 2 });
  });

  test('an empty list of a type the default convertor renders (no columns of its own) has null rows, as upstream', () => {
    assert.equal(buildTable({ columns, defaultConvertor: true }, [], base).rows, null);
    assert.match(JSON.stringify(buildTable({ columns, defaultConvertor: true }, [], base)), /"rows":null\}$/);
    assert.equal(buildTable({ columns, defaultConvertor: true }, objects.slice(0, 1), base).rows!.length, 1);
  });

  test('row conditions appear between cells and object, only when there are some', () => {
    const rowConditions = (o: KubeObject) => (o.metadata.name === 'a' ? [{ type: 'Completed', status: 'True' }] : undefined);
    const table = buildTable({ columns, rowConditions }, objects, base);
    assert.deepEqual(Object.keys(table.rows![0]!), ['cells', 'conditions', 'object']);
    assert.deepEqual(table.rows![0]!.conditions, [{ type: 'Completed', status: 'True' }]);
    assert.deepEqual(Object.keys(table.rows![1]!), ['cells', 'object']);
  });
});

describe('negotiating again', () => {
  test('the same Accept under other options negotiates anew; what is kept is shared, so frozen', () => {
    const accept = 'application/vnd.kubernetes.protobuf,application/json';
    for (let i = 0; i < 2; i++) {
      assert.equal(negotiateObject(accept, { protobuf: true }).serializer, 'protobuf');
      assert.equal(negotiateObject(accept, { protobuf: false }).serializer, 'json');
      assert.equal(negotiateObject(accept, { protobuf: true, stream: true }).contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
      assert.equal(negotiateObject(kubectlAccept, { tables: true }).table?.apiVersion, 'meta.k8s.io/v1');
      assert.equal(negotiateObject(kubectlAccept, { tables: false }).table, undefined);
      assert.equal(negotiateObject('application/json', { pretty: true }).pretty, true);
      assert.equal(negotiateObject('application/json', {}).pretty, false);
      assert.throws(() => negotiateObject('text/html', {}), (err) => isStatusError(err) && err.code === 406);
    }
    const negotiated = negotiateObject(kubectlAccept, { tables: true });
    assert.equal(negotiateObject(kubectlAccept, { tables: true }), negotiated);
    assert.ok(Object.isFrozen(negotiated) && Object.isFrozen(negotiated.accepted) && Object.isFrozen(negotiated.accepted.params) && Object.isFrozen(negotiated.table));
  });
});
