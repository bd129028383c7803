// int32 and int64 fields of built-in types, from their schemas: an integer out of its
// type's range fails decoding with Go's error, naming the struct that holds the field and
// the JSON path to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, integerDecodeError, integerSites, intOrStringDecodeError, intOrStringSites, schemaRef } from '../../src/schema/index.ts';

const sitesOf = (name: string) => integerSites(builtinDefinitions, { $ref: schemaRef(name) });

test('a Deployment\'s int32 fields, through its template\'s lists; in range is no error', () => {
  const sites = sitesOf('io.k8s.api.apps.v1.Deployment')!;
  const deployment = (spec: Record<string, unknown>, containers: unknown[] = [{ name: 'c', ports: [{ containerPort: 80 }] }]) => ({ spec: { ...spec, template: { spec: { containers } } } });
  assert.equal(integerDecodeError(sites, deployment({ replicas: 2147483647 })), undefined);
  assert.equal(integerDecodeError(sites, deployment({ replicas: 2147483648 })), 'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(integerDecodeError(sites, deployment({ replicas: -2147483649 })), 'json: cannot unmarshal number -2147483649 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(integerDecodeError(sites, deployment({}, [{ name: 'c', ports: [{ containerPort: 80 }, { containerPort: 1e10 }] }])),
    'json: cannot unmarshal number 10000000000 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32');
  assert.equal(integerDecodeError(sites, deployment({ replicas: 1.5 })), undefined, 'a fraction is the schema validation\'s type error');
  assert.equal(integerDecodeError(sites, { metadata: { generation: 1e12 } }), undefined, 'an int64 field takes what an int32 cannot');
});

test('int64 fields, the metadata\'s among them, refuse what int64 cannot hold', () => {
  const jobs = sitesOf('io.k8s.api.batch.v1.Job')!;
  assert.equal(integerDecodeError(jobs, { spec: { activeDeadlineSeconds: 2 ** 63 - 1024 } }), undefined);
  // 9223372036854775807 (int64's largest) parses to 2^63 as a double, so it cannot be told from 2^63: both are refused.
  assert.equal(integerDecodeError(jobs, { spec: { activeDeadlineSeconds: JSON.parse('9223372036854775808') } }),
    'json: cannot unmarshal number 9223372036854775808 into Go struct field JobSpec.spec.activeDeadlineSeconds of type int64');
  assert.equal(integerDecodeError(jobs, { spec: { activeDeadlineSeconds: -(2 ** 63) } }), undefined);
  assert.equal(integerDecodeError(jobs, { spec: { activeDeadlineSeconds: 1e19 } }),
    'json: cannot unmarshal number 10000000000000000000 into Go struct field JobSpec.spec.activeDeadlineSeconds of type int64');
  assert.equal(integerDecodeError(jobs, { spec: { template: { spec: { terminationGracePeriodSeconds: -1e19 } } } }),
    'json: cannot unmarshal number -10000000000000000000 into Go struct field PodSpec.spec.template.spec.terminationGracePeriodSeconds of type int64');
  const configMaps = sitesOf('io.k8s.api.core.v1.ConfigMap')!;
  assert.equal(integerDecodeError(configMaps, { metadata: { generation: 1e22 } }),
    'json: cannot unmarshal number 1e22 into Go struct field ObjectMeta.metadata.generation of type int64');
  assert.equal(integerDecodeError(configMaps, { data: { a: '1' }, metadata: { generation: 3 } }), undefined);
});

test('IntOrString values: a string, or an int32 decoded on its own (Go\'s error names no field)', () => {
  const sites = intOrStringSites(builtinDefinitions, { $ref: schemaRef('io.k8s.api.apps.v1.Deployment') })!;
  const strategy = (rollingUpdate: Record<string, unknown>) => ({ spec: { strategy: { rollingUpdate } } });
  assert.equal(intOrStringDecodeError(sites, strategy({ maxSurge: '25%', maxUnavailable: 2147483647 })), undefined);
  assert.equal(intOrStringDecodeError(sites, strategy({ maxSurge: 2147483648 })), 'json: cannot unmarshal number 2147483648 into Go value of type int32');
  assert.equal(intOrStringDecodeError(sites, strategy({ maxSurge: 1e308 })), 'json: cannot unmarshal number 1e308 into Go value of type int32');
  assert.equal(intOrStringDecodeError(sites, strategy({ maxUnavailable: 1.5 })), 'json: cannot unmarshal number 1.5 into Go value of type int32');
  assert.equal(intOrStringDecodeError(sites, strategy({ maxUnavailable: true })), 'json: cannot unmarshal bool into Go value of type int32');
  assert.equal(intOrStringDecodeError(sites, strategy({ maxUnavailable: { a: 1 } })), 'json: cannot unmarshal object into Go value of type int32');
  assert.equal(intOrStringDecodeError(sites, strategy({ maxUnavailable: null })), undefined);
});
