// The command line read as pflag reads kube-apiserver's, and flag values read as Go reads
// them, each refusal in pflag's and Go's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boolFlag, durationFlag, goParseDuration, goParseInt, intFlag, parseFlags, UsageError, type FlagSpec } from '../../src/cli/flag-parsing.ts';

const flags = {
  name: { kind: 'string' },
  on: { kind: 'bool' },
  list: { kind: 'slice' },
  each: { kind: 'array' },
  'two-words': { kind: 'string' },
  v: { kind: 'string', short: 'v' },
} as const satisfies Record<string, FlagSpec>;

const parse = (args: string[]) => parseFlags(args, flags, 'plinth serve');

test('pflag\'s spellings: --flag=value, --flag value (whatever it starts with), a bare bool, -v4, -v=4, -v 4', () => {
  const cases: Array<[string[], Record<string, string | string[]>]> = [
    [['--name=a'], { name: 'a' }],
    [['--name', 'a'], { name: 'a' }],
    [['--name', '--on'], { name: '--on' }],
    [['--name', '-1'], { name: '-1' }],
    [['--name='], { name: '' }],
    [['--on'], { on: 'true' }],
    [['--on=false'], { on: 'false' }],
    [['-v4'], { v: '4' }],
    [['-v=4'], { v: '4' }],
    [['-v', '4'], { v: '4' }],
    [['--v=4'], { v: '4' }],
    [['--two_words=x'], { 'two-words': 'x' }],
    [['--', ''], {}],
    [[''], {}],
  ];
  for (const [args, values] of cases) assert.deepEqual({ ...parse(args) }, values, args.join(' '));
});

test('a flag given twice: the last value, string slices and arrays every one', () => {
  assert.deepEqual({ ...parse(['--name=a', '--name', 'b', '--on', '--on=false']) }, { name: 'b', on: 'false' });
  assert.deepEqual({ ...parse(['--list=a,b', '--list', 'c']) }, { list: 'a,b,c' });
  assert.deepEqual({ ...parse(['--each=a,b', '--each', 'c']) }, { each: ['a,b', 'c'] });
});

test('what pflag and cobra refuse, in their words', () => {
  const refused: Array<[string[], string]> = [
    [['--nope'], 'unknown flag: --nope'],
    [['--nope=1'], 'unknown flag: --nope'],
    [['--name'], 'flag needs an argument: --name'],
    [['--on', '--name'], 'flag needs an argument: --name'],
    [['-v'], 'flag needs an argument: \'v\' in -v'],
    [['-x'], 'unknown shorthand flag: \'x\' in -x'],
    [['---name=a'], 'bad flag syntax: ---name=a'],
    [['--=a'], 'bad flag syntax: --=a'],
    [['extra'], '"plinth serve" does not take any arguments, got ["extra"]'],
    [['--on', 'false'], '"plinth serve" does not take any arguments, got ["false"]'],
    [['--', 'extra'], '"plinth serve" does not take any arguments, got ["extra"]'],
    [['-'], '"plinth serve" does not take any arguments, got ["-"]'],
    [['--constructor=x'], 'unknown flag: --constructor'],
  ];
  for (const [args, message] of refused) assert.throws(() => parse(args), (err: Error) => err instanceof UsageError && err.message === message, args.join(' '));
});

test('Go\'s strconv.ParseInt(s, 0, 64), as pflag\'s int flags read their values', () => {
  const parsed: Array<[string, number]> = [['0', 0], ['6443', 6443], ['-5', -5], ['+7', 7], ['0x10', 16], ['017', 15], ['0o17', 15], ['0b101', 5], ['1_000', 1000], ['0x_1f', 31]];
  for (const [text, value] of parsed) assert.equal(goParseInt(text), value, text);
  const syntax = ['', '+', '-', 'abc', '1.5', ' 5', '5 ', '08', '0x', '_1', '1_', '1__0', '6443s'];
  for (const text of syntax) assert.throws(() => goParseInt(text), { message: `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax` }, text);
  for (const text of ['9223372036854775808', '-9223372036854775809', '99999999999999999999']) {
    assert.throws(() => goParseInt(text), { message: `strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range` }, text);
  }
  assert.throws(() => intFlag('secure-port', 'abc'), { message: 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax' });
  assert.equal(intFlag('secure-port', undefined), undefined);
});

test('Go\'s time.ParseDuration, in milliseconds, with its words for what it refuses', () => {
  const parsed: Array<[string, number]> = [['0', 0], ['-0', -0], ['1h30m', 5_400_000], ['90s', 90_000], ['250ms', 250], ['-1.5h', -5_400_000], ['+1s', 1000], ['.5s', 500], ['5.s', 5000], ['1µs', 0.001], ['1m0s', 60_000]];
  for (const [text, ms] of parsed) assert.equal(goParseDuration(text), ms, text);
  const refused: Array<[string, string]> = [
    ['', 'time: invalid duration ""'],
    ['soon', 'time: invalid duration "soon"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['1h-1m', 'time: unknown unit "h-" in duration "1h-1m"'],
    ['1e3s', 'time: unknown unit "e" in duration "1e3s"'],
    ['2562048h', 'time: invalid duration "2562048h"'],
  ];
  for (const [text, message] of refused) assert.throws(() => goParseDuration(text), { message }, text);
  assert.throws(() => durationFlag('event-ttl', '1x'), { message: 'invalid argument "1x" for "--event-ttl" flag: time: unknown unit "x" in duration "1x"' });
});

test('Go\'s strconv.ParseBool, as pflag\'s bool flags read their values', () => {
  for (const text of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(boolFlag('on', text, false), true, text);
  for (const text of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(boolFlag('on', text, true), false, text);
  assert.equal(boolFlag('on', undefined, true), true);
  for (const text of ['maybe', 'yes', 'off', '', 'tRuE']) {
    assert.throws(() => boolFlag('on', text, false), { message: `invalid argument ${JSON.stringify(text)} for "--on" flag: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax` }, text);
  }
});
