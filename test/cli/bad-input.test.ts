// `plinth serve` given bad flags and files: each start fails at once with one line on
// stderr that names the flag (or file) and the reason, a non-zero exit code, no stack
// trace, and no data dir left half made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { parseServeFlags } from '../../src/cli/config.ts';
import { failureLine } from '../../src/cli/plinth.ts';
import { serve } from '../../src/cli/serve.ts';
import { repoRoot, tempDir } from '../helpers/server.ts';

const main = path.join(repoRoot, 'src/cli/main.cjs');

interface Exit { code: number | null; stderr: string }

/** `plinth serve --secure-port 0 <args>`: its exit code and stderr; a start still running after 30 s is a hang, killed. */
function plinth(args: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, 'serve', '--secure-port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const hang = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`plinth ${args.join(' ')} still running after 30 s:\n${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(hang);
      resolve({ code, stderr });
    });
  });
}

/** The last line of stderr (the lines before it are the start's log), checked to hold no stack trace. */
function lastLine(exit: Exit, what: string): string {
  assert.doesNotMatch(exit.stderr, /^\s+at /m, `${what}: no stack trace\n${exit.stderr}`);
  return exit.stderr.trimEnd().split('\n').at(-1)!;
}

test('a file a flag names that does not load fails the start with one line naming the flag and the reason, a usage error', async (t) => {
  const dir = tempDir('plinth-bad-input-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const missing = path.join(dir, 'missing');
  const aDir = path.join(dir, 'a-dir');
  mkdirSync(aDir);
  const empty = file('empty', '');
  const garbage = file('garbage', 'garbage\n');
  const policy = file('policy.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  const cases: Array<[string[], string]> = [
    [['--token-auth-file', missing], `--token-auth-file: ENOENT: no such file or directory, open '${missing}'`],
    [['--token-auth-file', aDir], '--token-auth-file: EISDIR: illegal operation on a directory, read'],
    [['--token-auth-file', garbage], '--token-auth-file: token file line 1: must have at least 3 columns (token, user name, user uid), found 1'],
    [['--client-ca-file', missing], `--client-ca-file: ENOENT: no such file or directory, open '${missing}'`],
    [['--client-ca-file', empty], '--client-ca-file: data does not contain any valid RSA or ECDSA certificates'],
    [['--client-ca-file', garbage], '--client-ca-file: data does not contain any valid RSA or ECDSA certificates'],
    [['--tls-cert-file', garbage, '--tls-private-key-file', garbage], '--tls-cert-file, --tls-private-key-file: tls: failed to find any PEM data in certificate input'],
    [['--tls-cert-file', aDir, '--tls-private-key-file', aDir], '--tls-cert-file, --tls-private-key-file: EISDIR: illegal operation on a directory, read'],
    [['--service-account-key-file', missing], `--service-account-key-file: ENOENT: no such file or directory, open '${missing}'`],
    [['--service-account-key-file', garbage], `--service-account-key-file: ${garbage} holds no PEM public key, private key or certificate`],
    [['--service-account-signing-key-file', aDir], '--service-account-signing-key-file: EISDIR: illegal operation on a directory, read'],
    [['--kubelet-client-certificate', missing, '--kubelet-client-key', missing], `--kubelet-client-certificate, --kubelet-client-key: kubelet client: ENOENT: no such file or directory, open '${missing}'`],
    [['--kubelet-certificate-authority', empty], '--kubelet-certificate-authority: kubelet client: data does not contain any valid RSA or ECDSA certificates'],
    [['--oidc-issuer-url=https://issuer.invalid', '--oidc-client-id=plinth', '--oidc-ca-file', empty], '--oidc-ca-file: data does not contain any valid RSA or ECDSA certificates'],
    [['--oidc-issuer-url=https://issuer.invalid', '--oidc-client-id=plinth', '--oidc-ca-file', missing], `--oidc-ca-file: ENOENT: no such file or directory, open '${missing}'`],
    [['--proxy-client-cert-file', garbage, '--proxy-client-key-file', garbage], '--proxy-client-cert-file, --proxy-client-key-file: tls: failed to find any PEM data in certificate input'],
    [['--authorization-mode=ABAC', '--authorization-policy-file', missing], `--authorization-policy-file: ENOENT: no such file or directory, open '${missing}'`],
    [['--runtime-config=nothing.example/v1=false'], '--runtime-config: unknown api groups nothing.example'],
    [['--audit-policy-file', policy, '--audit-log-path', aDir], `--audit-log-path: ensureLogFile: EISDIR: illegal operation on a directory, open '${aDir}'`],
    [['--storage=etcd', '--etcd-servers=http://127.0.0.1:1', '--etcd-cafile', missing], `--etcd-cafile: ENOENT: no such file or directory, open '${missing}'`],
    [['--storage=etcd', '--etcd-servers=http://127.0.0.1:1', '--etcd-certfile', empty, '--etcd-keyfile', empty],
      `--etcd-certfile, --etcd-keyfile: missing content for serving cert "serving-cert::${empty}::${empty}"`],
    [['--kubeconfig', aDir], `--kubeconfig ${aDir}: EISDIR: illegal operation on a directory, rename`],
  ];
  // The start as the command runs it (parsed flags, then serve), told as the command tells it.
  const dataDir = path.join(dir, 'data');
  for (const [args, message] of cases) {
    const what = args.join(' ');
    const failure = await serve(parseServeFlags(['--storage=memory', '--secure-port=0', '--data-dir', dataDir, ...args]), () => {}).then(
      (running) => running.close().then(() => assert.fail(`${what}: served`)),
      (err: unknown) => failureLine(err),
    );
    assert.equal(failure.code, 2, `${what}: ${failure.line}`);
    assert.doesNotMatch(failure.line, /\n/, `${what}: one line, no stack trace`);
    assert.ok(failure.line.startsWith(`plinth: ${message}`), `${what}: ${failure.line}`);
  }
});

test('from the command line: exit 2, that line alone after the start\'s log, and no data dir left', async (t) => {
  const dir = tempDir('plinth-bad-file-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const missing = path.join(dir, 'missing');
  const dataDir = path.join(dir, 'made', 'data');
  const exit = await plinth(['--data-dir', dataDir, '--token-auth-file', missing]);
  assert.equal(exit.code, 2, exit.stderr);
  assert.equal(lastLine(exit, 'a missing token file'), `plinth: --token-auth-file: ENOENT: no such file or directory, open '${missing}'`);
  assert.equal(existsSync(path.join(dir, 'made')), false, 'the data dir made for the start is gone');
});

test('a data dir that is a file, or under one, is refused naming --data-dir', async (t) => {
  const dir = tempDir('plinth-bad-data-dir-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const aFile = path.join(dir, 'file');
  writeFileSync(aFile, 'not a directory');
  const cases: Array<[string, string]> = [
    [aFile, `plinth: --data-dir ${aFile}: not a directory`],
    [path.join(aFile, 'sub'), `plinth: --data-dir ${path.join(aFile, 'sub')}: ENOTDIR: not a directory, mkdir '${path.join(aFile, 'sub')}'`],
  ];
  for (const [dataDir, message] of cases) {
    const failure = await serve(parseServeFlags(['--storage=memory', '--data-dir', dataDir]), () => {}).then(() => assert.fail('served'), failureLine);
    assert.deepEqual(failure, { line: message, code: 2 });
  }
});

test('a port already in use: upstream\'s words, exit 1, and what the start wrote in the data dir taken back', async (t) => {
  const dir = tempDir('plinth-port-in-use-');
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    taken.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { port } = taken.address() as AddressInfo;
  const message = `plinth: failed to create listener: failed to listen on 127.0.0.1:${port}: listen tcp 127.0.0.1:${port}: bind: address already in use`;
  // A data dir the start makes is removed; one that was there keeps only what it held.
  const fresh = path.join(dir, 'fresh', 'data');
  const existing = path.join(dir, 'existing');
  mkdirSync(existing);
  writeFileSync(path.join(existing, 'notes.txt'), 'mine');
  for (const dataDir of [fresh, existing]) {
    const exit = await plinth(['--data-dir', dataDir, '--secure-port', String(port)]);
    assert.equal(exit.code, 1, exit.stderr);
    assert.equal(lastLine(exit, dataDir), message);
  }
  assert.equal(existsSync(path.join(dir, 'fresh')), false);
  assert.deepEqual(readdirSync(existing), ['notes.txt']);
});

test('unknown flags, missing values and values of the wrong type: exit 2 with pflag\'s words before anything is made', async (t) => {
  const dir = tempDir('plinth-bad-flags-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'data');
  const cases: Array<[string[], string]> = [
    [['--nope'], 'unknown flag: --nope'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['--leader-elect=maybe'], 'invalid argument "maybe" for "--leader-elect" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ];
  await Promise.all(cases.map(async ([args, message]) => {
    const exit = await plinth(['--data-dir', dataDir, ...args]);
    assert.equal(exit.code, 2, exit.stderr);
    assert.equal(exit.stderr, `plinth: ${message}\n`, args.join(' '));
  }));
  assert.equal(existsSync(dataDir), false);
});
