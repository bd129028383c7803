import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { messages } from '../../src/encoding/protobuf/messages.ts';
import { specialTypes } from '../../src/encoding/protobuf/special-types.ts';
import { defaultKubectl, generateMessages, renderMessagesModule, specialMessages } from './protobuf-descriptor-source.ts';

const scalars = new Set(['string', 'bytes', 'bool', 'int32', 'int64']);

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
        assert.match(flags, /^(r|m|p|z|i)?$/, `${name}.${json}: flags ${flags}`);
        if (flags === 'p' || flags === 'z') assert.ok(scalars.has(type), `${name}.${json}: ${flags} on a message`);
        if (flags === 'i') assert.ok(Object.hasOwn(messages, type), `${name}.${json}: inline of ${type}`);
      }
    }
  });

  test('the special types are exactly those with their own JSON form', () => {
    assert.deepEqual([...specialTypes.keys(), 'runtime.RawExtension'].sort(), [...specialMessages].sort());
  });

  const kubectl = process.env.KUBECTL_WITH_DESCRIPTORS ?? defaultKubectl;
  test('messages.ts is what the descriptors embedded in kubectl 1.33 generate', { skip: existsSync(kubectl) ? false : `needs ${kubectl}` }, () => {
    const generated = generateMessages(readFileSync(kubectl));
    assert.deepEqual(Object.fromEntries(generated.messages), messages);
    const module = readFileSync(new URL('../../src/encoding/protobuf/messages.ts', import.meta.url), 'utf8');
    assert.equal(module, renderMessagesModule(generated, kubectl.split('/').pop()!));
  });
});
