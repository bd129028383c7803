// The stream translator's reading of a kubelet's error stream (client-go's errorDecoderV4),
// alone; the translated streams themselves are exercised end to end in
// test/e2e/kubelet-upgrade.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandStatus } from '../../src/endpoints/stream-translator.ts';

test('an error stream that is not JSON is client-go\'s protocol error: Go\'s syntax error and the text as %q quotes it', () => {
  assert.equal(commandStatus('oops\n').message, 'Internal error occurred: error stream protocol error: invalid character \'o\' looking for beginning of value in "oops\\n"');
  assert.equal(commandStatus('{"status":').message, 'Internal error occurred: error stream protocol error: unexpected end of JSON input in "{\\"status\\":"');
  assert.equal(commandStatus('').status, 'Success');
});
