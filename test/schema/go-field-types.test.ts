// src/schema/go-field-types.ts, the Go types of the built-in fields a schema cannot name,
// against the Go types of upstream's kube-controller-manager it is generated from.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { builtinDefinitions } from '../../src/schema/index.ts';
import { goFieldTypes } from '../../src/schema/go-field-types.ts';
import { defaultBinary, generateGoFieldTypes, missingDefinitions, renderGoFieldTypesModule, sourceName } from './go-field-types-source.ts';

describe('Go field types', () => {
  test('every entry is a property of a built-in definition', () => {
    for (const [definition, fields] of Object.entries(goFieldTypes)) {
      const schema = builtinDefinitions[definition];
      assert.ok(schema !== undefined, `${definition} is no built-in definition`);
      for (const field of Object.keys(fields)) assert.ok(schema.properties?.[field] !== undefined, `${definition} has no property ${field}`);
    }
  });

  test('facts from upstream\'s Go types (core/v1, apps/v1 and others)', () => {
    const cases: [definition: string, field: string, goType: string][] = [
      ['io.k8s.api.core.v1.ContainerPort', 'protocol', 'v1.Protocol'],
      ['io.k8s.api.core.v1.Container', 'imagePullPolicy', 'v1.PullPolicy'],
      ['io.k8s.api.core.v1.Container', 'restartPolicy', 'v1.ContainerRestartPolicy'],
      ['io.k8s.api.core.v1.PodSpec', 'restartPolicy', 'v1.RestartPolicy'],
      ['io.k8s.api.core.v1.ServiceSpec', 'type', 'v1.ServiceType'],
      ['io.k8s.api.core.v1.PersistentVolumeClaimSpec', 'accessModes', '[]v1.PersistentVolumeAccessMode'],
      ['io.k8s.api.core.v1.ResourceRequirements', 'limits', 'v1.ResourceList'],
      ['io.k8s.api.core.v1.Capabilities', 'add', '[]v1.Capability'],
      ['io.k8s.api.apps.v1.DeploymentStrategy', 'type', 'v1.DeploymentStrategyType'],
      ['io.k8s.api.apps.v1.DeploymentCondition', 'status', 'v1.ConditionStatus'],
      ['io.k8s.api.networking.v1.HTTPIngressPath', 'pathType', 'v1.PathType'],
      ['io.k8s.api.admissionregistration.v1.RuleWithOperations', 'operations', '[]v1.OperationType'],
      ['io.k8s.api.autoscaling.v2.MetricSpec', 'type', 'v2.MetricSourceType'],
    ];
    for (const [definition, field, goType] of cases) assert.equal(goFieldTypes[definition]?.[field], goType, `${definition}.${field}`);
  });

  // Upstream's kube-controller-manager v1.36.2: unpacked already, or read from the shared
  // tools folder's archive (not unpacked here: another test may be unpacking it now).
  const packed = `${process.env.PLINTH_UPSTREAM_BIN ?? '/work/shared/bin'}/kube-controller-manager.xz`;
  const missing = existsSync(defaultBinary) || existsSync(packed) ? false
    : `needs upstream's kube-controller-manager v1.36.2: neither ${defaultBinary} nor ${packed} is there`;
  test('go-field-types.ts is what the Go types of kube-controller-manager v1.36.2 generate', { skip: missing }, () => {
    const binary = existsSync(defaultBinary) ? readFileSync(defaultBinary) : execFileSync('xz', ['-d', '-c', packed], { maxBuffer: 512 * 1024 * 1024 });
    const module = readFileSync(new URL('../../src/schema/go-field-types.ts', import.meta.url), 'utf8');
    assert.equal(module, renderGoFieldTypesModule(generateGoFieldTypes(binary), sourceName(defaultBinary)), 'go-field-types.ts is stale: regenerate it');
    // meta/v1 Patch is a placeholder schema of no Go fields.
    assert.deepEqual(missingDefinitions(binary), ['io.k8s.apimachinery.pkg.apis.meta.v1.Patch']);
  });
});
