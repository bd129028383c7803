// `plinth` subcommands: version answers what /version does; unknown commands are usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { versionInfo } from '../../src/endpoints/version.ts';
import { plinthVersion } from '../../src/cli/serve.ts';
import { repoRoot } from '../helpers/server.ts';

const run = promisify(execFile);
const main = path.join(repoRoot, 'src/cli/main.ts');

test('plinth version prints the version /version answers', async () => {
  const { stdout } = await run(process.execPath, [main, 'version']);
  assert.deepEqual(JSON.parse(stdout), versionInfo(plinthVersion));
});

test('an unknown command is a usage error (exit 2)', async () => {
  await assert.rejects(run(process.execPath, [main, 'frobnicate']), (err: { code?: number; stderr?: string }) => err.code === 2 && /unknown command "frobnicate"/.test(err.stderr ?? ''));
});
