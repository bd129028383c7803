// `npm run build` (and `npm pack`, through prepack): the package's JavaScript in dist/,
// compiled from src/ with the .ts import paths rewritten, with the data files src/ reads
// at run time (definitions, the bootstrap policy) copied beside it. Node does not strip
// types inside node_modules, so an installed Plinth runs from dist/.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

function copyData(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const from = path.join(dir, entry);
    if (statSync(from).isDirectory()) copyData(from);
    else if (!entry.endsWith('.ts') && !entry.endsWith('.md')) cpSync(from, path.join(dist, path.relative(src, from)));
  }
}
copyData(src);
