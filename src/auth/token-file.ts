// kube-apiserver's static token file: parse it, and create the admin token once.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readIfPresent } from '../api/read-if-present.ts';
import { systemMasters, type UserInfo } from './user.ts';

/**
 * kube-apiserver's static token file (`--token-auth-file`): CSV records
 * `token,user,uid,"group1,group2"`, the groups column optional. Read like
 * k8s.io/apiserver's tokenfile.NewCSV with Go's encoding/csv: quoted fields may hold
 * commas, doubled quotes and newlines; fields are not trimmed; blank lines are skipped;
 * columns after the fourth are ignored.
 *
 * Stricter than upstream, which only warns: an empty token, an empty user name or a
 * repeated token is an error, since each means the file does not say what its author meant.
 * Error messages name the line and never quote a token.
 */
export function parseTokenFile(text: string, source = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  const lineOfToken = new Map<string, number>();
  for (const { line, fields } of csvRecords(text, source)) {
    const where = `${source} line ${line}`;
    if (fields.length < 3) {
      throw new Error(`${where}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') throw new Error(`${where}: the token is empty`);
    if (name === '') throw new Error(`${where}: the user name is empty`);
    const earlier = lineOfToken.get(token);
    if (earlier !== undefined) throw new Error(`${where}: repeats the token of line ${earlier}`);
    lineOfToken.set(token, line);
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',').filter((g) => g !== '') });
  }
  return tokens;
}

/** The file text for `entries`, one record each, readable by kube-apiserver too. */
export function formatTokenFile(entries: Iterable<readonly [token: string, user: UserInfo]>): string {
  let text = '';
  for (const [token, user] of entries) {
    const fields = [csvField(token), csvField(user.name), csvField(user.uid)];
    if (user.groups.length > 0) fields.push(quoted(user.groups.join(',')));
    text += fields.join(',') + '\n';
  }
  return text;
}

/**
 * The admin token of `<dataDir>/tokens.csv`, creating the file (mode 0600) with a random
 * token for user `admin` in group `system:masters` when it does not exist. An existing
 * file is never rewritten; its first record for user `admin` gives the token.
 */
export async function ensureAdminToken(dataDir: string, opts: { sync?: boolean } = {}): Promise<{ token: string; path: string }> {
  const path = join(dataDir, 'tokens.csv');
  const existing = readIfPresent(path);
  if (existing === undefined) {
    const token = randomBytes(32).toString('base64url');
    const file = formatTokenFile([[token, { name: 'admin', uid: 'admin', groups: [systemMasters] }]]);
    if (await createExclusive(path, file, opts.sync !== false)) return { token, path };
    // Another process created it first; its token is the one.
  }
  const text = existing ?? (await readFile(path, 'utf8'));
  for (const [token, user] of parseTokenFile(text, path)) {
    if (user.name === 'admin') return { token, path };
  }
  throw new Error(`${path} has no token for user "admin"; add a line such as <token>,admin,admin,"${systemMasters}"`);
}

/**
 * Publishes a complete file at `path` only if nothing is there: written beside it, then
 * hard-linked into place (link fails on an existing name, unlike rename). False if it existed.
 */
async function createExclusive(path: string, text: string, sync: boolean): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text);
      await handle.chmod(0o600);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(temp, { force: true });
  }
}

// Go's csv.Writer quotes a field that holds a delimiter, quote or line break, or starts with a space.
function csvField(value: string): string {
  return /[",\r\n]/.test(value) || /^[ \t]/.test(value) ? quoted(value) : value;
}

function quoted(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

interface CsvRecord {
  /** 1-based line where the record starts. */
  line: number;
  fields: string[];
}

/** Go encoding/csv reading (comma separator, strict quotes, CRLF as LF, empty lines skipped). */
function csvRecords(text: string, source: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const input = text.replace(/^\uFEFF/, '').replaceAll('\r\n', '\n');
  let line = 1;
  let i = 0;
  while (i < input.length) {
    if (input[i] === '\n') {
      line++;
      i++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (input[i] === '"') {
        i++;
        for (;;) {
          if (i >= input.length) throw new Error(`${source} line ${start}: a quoted field is not closed`);
          const c = input[i]!;
          if (c === '"') {
            if (input[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < input.length && input[i] !== ',' && input[i] !== '\n') {
          throw new Error(`${source} line ${line}: a quoted field must be followed by a comma or the end of the line`);
        }
      } else {
        while (i < input.length && input[i] !== ',' && input[i] !== '\n') {
          if (input[i] === '"') throw new Error(`${source} line ${line}: a quote inside an unquoted field; quote the whole field and double the inner quote`);
          field += input[i];
          i++;
        }
      }
      fields.push(field);
      if (i < input.length && input[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push({ line: start, fields });
  }
  return records;
}
