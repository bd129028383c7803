// The generated files are what tools/generate-api.ts makes of upstream's data today.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { defaultUpstreamDir, generate, outputs, protobufMessageOf, repoRoot } from '../../tools/generate-api.ts';

const missingData = existsSync(path.join(defaultUpstreamDir, 'openapi-v3')) ? false : `upstream's data is not at ${defaultUpstreamDir}`;

test('every committed generated file equals a fresh generation', { skip: missingData }, () => {
  const files = generate();
  assert.deepEqual([...files.keys()].sort(), Object.values(outputs).sort());
  for (const [file, content] of files) {
    assert.equal(readFileSync(path.join(repoRoot, file), 'utf8'), content, `${file} is stale: run npm run generate`);
  }
});

test('definitions name their Protobuf messages by package', () => {
  assert.equal(protobufMessageOf('io.k8s.api.apps.v1.Deployment'), 'apps.v1.Deployment');
  assert.equal(protobufMessageOf('io.k8s.apimachinery.pkg.apis.meta.v1.Status'), 'meta.v1.Status');
  assert.equal(protobufMessageOf('io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService'), 'apiregistration.v1.APIService');
  assert.throws(() => protobufMessageOf('com.example.v1.Widget'), /no Protobuf package/);
});
