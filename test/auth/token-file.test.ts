import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdminToken, formatTokenFile, parseTokenFile } from '../../src/auth/token-file.ts';
import type { UserInfo } from '../../src/auth/user.ts';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plinth-tokens-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const parseCases: { name: string; text: string; expected: [string, UserInfo][] }[] = [
  { name: 'three columns, no groups', text: 't1,alice,u1\n', expected: [['t1', { name: 'alice', uid: 'u1', groups: [] }]] },
  {
    name: 'quoted groups column',
    text: 't1,alice,u1,"dev,ops"\n',
    expected: [['t1', { name: 'alice', uid: 'u1', groups: ['dev', 'ops'] }]],
  },
  { name: 'unquoted single group', text: 't1,alice,u1,dev', expected: [['t1', { name: 'alice', uid: 'u1', groups: ['dev'] }]] },
  { name: 'empty uid is allowed like upstream', text: 't1,alice,', expected: [['t1', { name: 'alice', uid: '', groups: [] }]] },
  { name: 'empty groups column means no groups', text: 't1,alice,u1,', expected: [['t1', { name: 'alice', uid: 'u1', groups: [] }]] },
  {
    name: 'columns after the fourth are ignored',
    text: 't1,alice,u1,dev,extra,more',
    expected: [['t1', { name: 'alice', uid: 'u1', groups: ['dev'] }]],
  },
  {
    name: 'doubled quotes inside a quoted field',
    text: '"t""1",alice,u1',
    expected: [['t"1', { name: 'alice', uid: 'u1', groups: [] }]],
  },
  {
    name: 'CRLF line ends and blank lines',
    text: 't1,alice,u1\r\n\r\n\nt2,bob,u2,"system:masters"\r\n',
    expected: [
      ['t1', { name: 'alice', uid: 'u1', groups: [] }],
      ['t2', { name: 'bob', uid: 'u2', groups: ['system:masters'] }],
    ],
  },
  {
    name: 'fields are not trimmed, like Go encoding/csv',
    text: 't1, alice,u1',
    expected: [['t1', { name: ' alice', uid: 'u1', groups: [] }]],
  },
  { name: 'empty file', text: '', expected: [] },
  { name: 'byte order mark', text: '\uFEFFt1,alice,u1', expected: [['t1', { name: 'alice', uid: 'u1', groups: [] }]] },
];

test('parseTokenFile reads upstream token files', () => {
  for (const c of parseCases) {
    assert.deepEqual([...parseTokenFile(c.text)], c.expected, c.name);
  }
});

const badCases: { name: string; text: string; error: RegExp }[] = [
  { name: 'too few columns', text: 't1,alice,u1\nt2,bob\n', error: /^Error: tokens\.csv line 2: must have at least 3 columns \(token, user name, user uid\), found 2$/ },
  { name: 'a lone word', text: '\n\nsecret\n', error: /^Error: tokens\.csv line 3: must have at least 3 columns/ },
  { name: 'empty token', text: ',alice,u1', error: /^Error: tokens\.csv line 1: the token is empty$/ },
  { name: 'empty user name', text: 't1,,u1', error: /^Error: tokens\.csv line 1: the user name is empty$/ },
  { name: 'repeated token', text: 't1,alice,u1\nt2,bob,u2\nt1,carol,u3', error: /^Error: tokens\.csv line 3: repeats the token of line 1$/ },
  { name: 'unclosed quote', text: 't1,alice,u1,"dev,ops\n', error: /^Error: tokens\.csv line 1: a quoted field is not closed$/ },
  { name: 'bare quote in a field', text: 't1,al"ice,u1', error: /^Error: tokens\.csv line 1: a quote inside an unquoted field/ },
  { name: 'text after a closing quote', text: 't1,alice,u1\nt2,bob,"u2"x', error: /^Error: tokens\.csv line 2: a quoted field must be followed by a comma/ },
  {
    name: 'line numbers count newlines inside quoted fields',
    text: 't1,alice,u1,"dev,\nops"\nt2,bob',
    error: /^Error: tokens\.csv line 3: must have at least 3 columns/,
  },
];

test('parseTokenFile rejects bad lines with an error naming the line', () => {
  for (const c of badCases) {
    assert.throws(() => parseTokenFile(c.text, 'tokens.csv'), (err: Error) => {
      assert.match(String(err), c.error, c.name);
      return true;
    });
  }
});

test('error messages never contain the token', () => {
  const secret = 'very-secret-token-value';
  for (const text of [`${secret},alice`, `${secret},alice,u1\n${secret},bob,u2`, `${secret},"alice`]) {
    assert.throws(() => parseTokenFile(text), (err: Error) => !err.message.includes(secret));
  }
});

test('formatTokenFile writes what parseTokenFile reads back', () => {
  const entries: [string, UserInfo][] = [
    ['plain', { name: 'alice', uid: 'u1', groups: [] }],
    ['with,comma', { name: 'bob "the builder"', uid: ' spaced', groups: ['system:masters', 'dev'] }],
    ['one-group', { name: 'carol', uid: '', groups: ['ops'] }],
  ];
  const text = formatTokenFile(entries);
  assert.equal(
    text,
    'plain,alice,u1\n"with,comma","bob ""the builder"""," spaced","system:masters,dev"\none-group,carol,,"ops"\n',
  );
  assert.deepEqual([...parseTokenFile(text)], entries);
});

test('ensureAdminToken creates tokens.csv once, mode 0600, with an admin in system:masters', async (t) => {
  const dir = await tempDir(t);
  const { token, path } = await ensureAdminToken(dir);
  assert.equal(path, join(dir, 'tokens.csv'));
  assert.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual([...parseTokenFile(await readFile(path, 'utf8'))], [[token, { name: 'admin', uid: 'admin', groups: ['system:masters'] }]]);
  assert.deepEqual(await ensureAdminToken(dir), { token, path });
});

test('ensureAdminToken reads the first admin of an existing file and leaves it unchanged', async (t) => {
  const dir = await tempDir(t);
  const text = 'tb,bob,u2\nta,admin,a1,"system:masters"\ntc,admin,a2\n';
  await writeFile(join(dir, 'tokens.csv'), text);
  assert.equal((await ensureAdminToken(dir)).token, 'ta');
  assert.equal(await readFile(join(dir, 'tokens.csv'), 'utf8'), text);
});

test('ensureAdminToken fails clearly when the file has no admin', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'tokens.csv'), 'tb,bob,u2\n');
  await assert.rejects(ensureAdminToken(dir), /tokens\.csv has no token for user "admin"/);
});

test('concurrent ensureAdminToken calls agree on one token', async (t) => {
  const dir = await tempDir(t);
  const results = await Promise.all(Array.from({ length: 8 }, () => ensureAdminToken(dir)));
  assert.equal(new Set(results.map((r) => r.token)).size, 1);
  assert.equal(parseTokenFile(await readFile(join(dir, 'tokens.csv'), 'utf8')).size, 1);
});

test('ensureAdminToken creates a missing data dir', async (t) => {
  const dir = join(await tempDir(t), 'nested', 'data');
  const { path } = await ensureAdminToken(dir);
  assert.equal((await stat(path)).mode & 0o777, 0o600);
});
