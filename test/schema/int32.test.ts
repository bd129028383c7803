// int32 fields of built-in types, from their schemas: an integer out of int32's range fails
// decoding with Go's error, naming the struct that holds the field and the JSON path to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, int32DecodeError, int32Sites, schemaRef } from '../../src/schema/index.ts';

const sitesOf = (name: string) => int32Sites(builtinDefinitions, { $ref: schemaRef(name) });

test('a Deployment\'s int32 fields, through its template\'s lists; in range is no error', () => {
  const sites = sitesOf('io.k8s.api.apps.v1.Deployment')!;
  const deployment = (spec: Record<string, unknown>, containers: unknown[] = [{ name: 'c', ports: [{ containerPort: 80 }] }]) => ({ spec: { ...spec, template: { spec: { containers } } } });
  assert.equal(int32DecodeError(sites, deployment({ replicas: 2147483647 })), undefined);
  assert.equal(int32DecodeError(sites, deployment({ replicas: 2147483648 })), 'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(int32DecodeError(sites, deployment({ replicas: -2147483649 })), 'json: cannot unmarshal number -2147483649 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(int32DecodeError(sites, deployment({}, [{ name: 'c', ports: [{ containerPort: 80 }, { containerPort: 1e10 }] }])),
    'json: cannot unmarshal number 10000000000 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32');
  assert.equal(int32DecodeError(sites, deployment({ replicas: 1.5 })), undefined, 'a fraction is the schema validation\'s type error');
  assert.equal(int32DecodeError(sites, { metadata: { generation: 1e12 } }), undefined, 'int64 fields are not int32 sites');
});

test('ConfigMaps and Secrets have no int32 field to walk', () => {
  assert.equal(sitesOf('io.k8s.api.core.v1.ConfigMap'), undefined);
  assert.equal(sitesOf('io.k8s.api.core.v1.Secret'), undefined);
});
