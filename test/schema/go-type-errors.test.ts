// A built-in object's value of the wrong kind, as Go's decoders refuse it: encoding/json
// for JSON bodies (the struct holding the field, the JSON path, the field's Go type, named
// types by their names) and fxamacker/cbor for CBOR bodies (the item's CBOR type, the
// outermost struct's field, the Go type).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cborTypeAt, decodeCbor, EncodedCbor, encodeCbor } from '../../src/encoding/cbor.ts';
import { builtinDefinitions, goTypeError, schemaRef } from '../../src/schema/index.ts';

const schemaOf = (name: string) => ({ $ref: schemaRef(name) });
const pod = schemaOf('io.k8s.api.core.v1.Pod');
const deployment = schemaOf('io.k8s.api.apps.v1.Deployment');
const podWith = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({ spec: { ...spec, containers: [{ name: 'c', image: 'i', ...container }] } });
/** A CBOR text string; encodeCbor writes strings as byte strings, as Kubernetes' encoders do. */
const text = (s: string) => new EncodedCbor(Buffer.concat([Buffer.from([0x60 | s.length]), Buffer.from(s)]));

describe('JSON bodies: encoding/json\'s words', () => {
  const cases: { name: string; schema: object; body: unknown; error: string | undefined }[] = [
    { name: 'a ContainerPort\'s protocol a number names v1.Protocol', schema: pod, body: podWith({ ports: [{ containerPort: 80, protocol: 6 }] }),
      error: 'json: cannot unmarshal number into Go struct field ContainerPort.spec.containers.ports.protocol of type v1.Protocol' },
    { name: 'imagePullPolicy a bool names v1.PullPolicy', schema: pod, body: podWith({ imagePullPolicy: true }),
      error: 'json: cannot unmarshal bool into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy' },
    { name: 'a pod\'s restartPolicy a list names v1.RestartPolicy', schema: pod, body: podWith({}, { restartPolicy: ['Always'] }),
      error: 'json: cannot unmarshal array into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy' },
    { name: 'a capability a number names the element type', schema: pod, body: podWith({ securityContext: { capabilities: { add: ['NET_ADMIN', 1] } } }),
      error: 'json: cannot unmarshal number into Go struct field Capabilities.spec.containers.securityContext.capabilities.add of type v1.Capability' },
    { name: 'capabilities a string names the slice type', schema: pod, body: podWith({ securityContext: { capabilities: { add: 'NET_ADMIN' } } }),
      error: 'json: cannot unmarshal string into Go struct field Capabilities.spec.containers.securityContext.capabilities.add of type []v1.Capability' },
    { name: 'limits a string names v1.ResourceList', schema: pod, body: podWith({ resources: { limits: 'x' } }),
      error: 'json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList' },
    { name: 'a Service\'s type a number names v1.ServiceType', schema: schemaOf('io.k8s.api.core.v1.Service'), body: { spec: { type: 1 } },
      error: 'json: cannot unmarshal number into Go struct field ServiceSpec.spec.type of type v1.ServiceType' },
    { name: 'a claim\'s access mode a number', schema: schemaOf('io.k8s.api.core.v1.PersistentVolumeClaim'), body: { spec: { accessModes: [1] } },
      error: 'json: cannot unmarshal number into Go struct field PersistentVolumeClaimSpec.spec.accessModes of type v1.PersistentVolumeAccessMode' },
    { name: 'a Deployment\'s strategy type a number', schema: deployment, body: { spec: { strategy: { type: 1 } } },
      error: 'json: cannot unmarshal number into Go struct field DeploymentStrategy.spec.strategy.type of type v1.DeploymentStrategyType' },
    { name: 'a plain string field is still string', schema: pod, body: podWith({ env: [{ name: 'a', value: 1 }] }),
      error: 'json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string' },
    { name: 'an int32 field', schema: deployment, body: { spec: { replicas: 'x' } },
      error: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { name: 'well-typed: no error', schema: pod, body: podWith({ ports: [{ containerPort: 80, protocol: 'TCP' }] }), error: undefined },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(goTypeError(builtinDefinitions, c.schema, c.body), c.error));
  }
});

describe('CBOR bodies: fxamacker/cbor\'s words', () => {
  const cases: { name: string; schema: object; body: unknown; error: string | undefined }[] = [
    { name: 'replicas a text string', schema: deployment, body: { spec: { replicas: text('3') } },
      error: 'cbor: cannot unmarshal UTF-8 text string into Go struct field v1.Deployment.spec of type int32' },
    { name: 'replicas a byte string', schema: deployment, body: { spec: { replicas: '3' } },
      error: 'cbor: cannot unmarshal byte string into Go struct field v1.Deployment.spec of type int32' },
    { name: 'a protocol a positive integer, deep in a list', schema: pod, body: podWith({ ports: [{ containerPort: 80 }, { containerPort: 81, protocol: 6 }] }),
      error: 'cbor: cannot unmarshal positive integer into Go struct field v1.Pod.spec of type v1.Protocol' },
    { name: 'a negative integer', schema: pod, body: podWith({ env: [{ name: 'a', value: -1 }] }),
      error: 'cbor: cannot unmarshal negative integer into Go struct field v1.Pod.spec of type string' },
    { name: 'a bool is a primitive', schema: pod, body: podWith({ imagePullPolicy: false }),
      error: 'cbor: cannot unmarshal primitives into Go struct field v1.Pod.spec of type v1.PullPolicy' },
    { name: 'a float is a primitive', schema: pod, body: podWith({ ports: [{ containerPort: 1.5 }] }),
      error: 'cbor: cannot unmarshal primitives into Go struct field v1.Pod.spec of type int32' },
    { name: 'a map for a string', schema: schemaOf('io.k8s.api.core.v1.ConfigMap'), body: { data: { a: { b: 'c' } } },
      error: 'cbor: cannot unmarshal map into Go struct field v1.ConfigMap.data of type string' },
    { name: 'an array for a struct says why', schema: deployment, body: { spec: { template: [1] } },
      error: 'cbor: cannot unmarshal array into Go struct field v1.Deployment.spec of type v1.PodTemplateSpec (cannot decode CBOR array to struct without toarray option)' },
    { name: 'an array for a string', schema: pod, body: podWith({ image: ['i'] }),
      error: 'cbor: cannot unmarshal array into Go struct field v1.Pod.spec of type string' },
    { name: 'a top-level field names itself', schema: deployment, body: { spec: 'x' },
      error: 'cbor: cannot unmarshal byte string into Go struct field v1.Deployment.spec of type v1.DeploymentSpec' },
    { name: 'well-typed text strings: no error', schema: deployment, body: { spec: { replicas: 1, selector: { matchLabels: { a: text('b') } } } }, error: undefined },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const body = encodeCbor(c.body);
      assert.equal(goTypeError(builtinDefinitions, c.schema, decodeCbor(body), (path) => cborTypeAt(body, path)), c.error);
    });
  }
});

describe('cborTypeAt: the CBOR type of a body\'s item by path', () => {
  // {"a": [1, -1, "x"(text), h'', 1.5, true, {"b": null}]} behind the self-described tag, the array indefinite.
  const body = Buffer.from('d9d9f7 a1 6161 9f 01 20 6178 40 f93e00 f5 a1 4162 f6 ff'.replace(/\s/g, ''), 'hex');
  const cases: [path: (string | number)[], type: string | undefined][] = [
    [[], 'map'], [['a'], 'array'], [['a', 0], 'positive integer'], [['a', 1], 'negative integer'], [['a', 2], 'UTF-8 text string'],
    [['a', 3], 'byte string'], [['a', 4], 'primitives'], [['a', 5], 'primitives'], [['a', 6], 'map'], [['a', 6, 'b'], 'primitives'],
    [['a', 7], undefined], [['b'], undefined], [['a', 'x'], undefined], [['a', 0, 'x'], undefined],
  ];
  for (const [path, type] of cases) test(`at ${JSON.stringify(path)}: ${type}`, () => assert.equal(cborTypeAt(body, path), type));
});
