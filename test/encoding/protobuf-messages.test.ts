import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import { messages } from '../../src/encoding/protobuf/messages.ts';
import { oneOfTypes } from '../../src/encoding/protobuf/one-of-types.ts';
import { specialTypes } from '../../src/encoding/protobuf/special-types.ts';
import { servedKinds } from '../../src/encoding/protobuf/roots.ts';
import { defaultBinary, generateMessages, renderMessagesModule, sourceName, specialMessages } from './protobuf-descriptor-source.ts';

const scalars = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

describe('protobuf message descriptors', () => {
  test('every field type is a scalar, a listed message or a special type', () => {
    for (const [name, fields] of Object.entries(messages)) {
      for (const [, json, type] of fields) {
        const known = scalars.has(type) || Object.hasOwn(messages, type) || specialTypes.has(type) || type === 'runtime.RawExtension';
        assert.ok(known, `${name}.${json}: unknown type ${type}`);
      }
    }
  });

  test('field numbers and JSON names are unique and flags are known', () => {
    for (const [name, fields] of Object.entries(messages)) {
      assert.equal(new Set(fields.map((f) => f[0])).size, fields.length, `${name}: duplicate field number`);
      assert.equal(new Set(fields.map((f) => f[1])).size, fields.length, `${name}: duplicate JSON name`);
      for (const [, json, type, flags] of fields) {
        assert.match(flags, /^(re?|me?|p|z|i|e)?$/, `${name}.${json}: flags ${flags}`);
        if (json === '') assert.ok(fields.length === 1 && flags === 'r', `${name}: only a list message has a field without a JSON name`);
        if (flags === 'z') assert.ok(scalars.has(type), `${name}.${json}: z on a message`);
        if (flags === 'i') assert.ok(Object.hasOwn(messages, type), `${name}.${json}: inline of ${type}`);
      }
    }
  });

  test('the special types are exactly those with their own JSON form', () => {
    assert.deepEqual([...specialTypes.keys(), 'runtime.RawExtension'].sort(), [...specialMessages].sort());
  });

  test('every served kind has its message', () => {
    for (const [apiVersion, kinds] of Object.entries(servedKinds)) {
      for (const [kind, message] of Object.entries(kinds)) {
        assert.ok(Object.hasOwn(messages, message), `${apiVersion} ${kind}: no message ${message}`);
      }
    }
  });

  test('each one-of type is a message whose fields are the forms it chooses between', () => {
    for (const name of oneOfTypes.keys()) {
      assert.ok(Object.hasOwn(messages, name), `${name} has no message`);
      assert.ok(!specialTypes.has(name), `${name} is a special type too`);
    }
  });

  // Upstream's kube-controller-manager v1.36.2, unpacked from the shared tools folder.
  const packed = process.env.PLINTH_UPSTREAM_BIN ?? '/work/shared/bin';
  const canUnpack = existsSync(`${packed}/unpack.sh`);
  const missing = canUnpack || existsSync(defaultBinary) ? false
    : `needs upstream's kube-controller-manager v1.36.2: neither ${defaultBinary} nor ${packed}/unpack.sh is there`;
  test('messages.ts is what the Go types of kube-controller-manager v1.36.2 generate', { skip: missing }, () => {
    if (canUnpack) execFileSync(`${packed}/unpack.sh`, [dirname(defaultBinary)], { stdio: 'ignore' });
    const generated = generateMessages(readFileSync(defaultBinary));
    assert.deepEqual(Object.fromEntries(generated.messages), messages);
    const module = readFileSync(new URL('../../src/encoding/protobuf/messages.ts', import.meta.url), 'utf8');
    assert.equal(module, renderMessagesModule(generated, sourceName(defaultBinary)), 'messages.ts is stale: regenerate it');
  });
});
