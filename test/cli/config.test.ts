// `plinth serve` flags that the tests elsewhere do not reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServeFlags, UsageError } from '../../src/cli/config.ts';

test('verbosity is 0 unless -v/--v says otherwise, in each of pflag\'s spellings', () => {
  assert.equal(parseServeFlags([]).verbosity, 0);
  for (const args of [['--v=4'], ['--v', '4'], ['-v', '4'], ['-v4'], ['-v=4']]) {
    assert.equal(parseServeFlags(args).verbosity, 4, args.join(' '));
  }
});

test('a verbosity that is not a number is a usage error', () => {
  for (const args of [['--v=x'], ['--v=-1'], ['--v=']]) {
    assert.throws(() => parseServeFlags(args), UsageError, args.join(' '));
  }
});
