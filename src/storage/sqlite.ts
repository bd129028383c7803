// The embedded backend: etcd's MVCC model on one SQLite file (node:sqlite).
//
// Tables:
//   history  every version of every key, by revision (one write = one revision =
//            one row); a deletion is a row with deleted = 1. Indexed by
//            (key, revision) for reads at an older revision.
//   kv       the current version of each live key: key -> (create, mod revision),
//            the value being the history row at mod_revision. Current gets and
//            lists walk this table's primary key: O(limit + log n).
//   meta     the current revision, the compacted revision, and how far the
//            compaction sweep has got.
//   expiry   the keys written with a time to live, and when each is due (wall-clock
//            milliseconds); expiries.ts deletes them then, as etcd revokes a lease.
// Keys are TEXT with SQLite's default BINARY collation: bytewise, like etcd.
//
// Writes go through GroupCommit (see group-commit.ts): one transaction per burst.
// Reads and commits are synchronous, which is what lets the watch hub hand over
// from history to live events without a gap (see watch-hub.ts).
//
// Durability: the connection runs with synchronous = NORMAL (SQLite syncs only
// around checkpoints), and each commit's WAL is synced (wal-sync.ts: on the event loop
// while the disk is fast, on libuv's thread pool while it is slow), which is what
// synchronous = FULL adds. A batch's writes count (revision, events, answers) only once
// that sync is done; until then reads stay at the revision before it, and the next
// batch waits.

import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from 'node:sqlite';
import type { Backend, KeyValue, ListOptions, ListResult, PutOptions, StorageEvent, Watch } from './backend.ts';
import { isStorageError } from './backend.ts';
import { compacted, futureRevision, unavailable } from './errors.ts';
import { Expiries, notDue } from './expiries.ts';
import { GroupCommit } from './group-commit.ts';
import { listRange, type KeyRange } from './keys.ts';
import { INITIAL_REVISION, readRevision } from './revisions.ts';
import { WalSync } from './wal-sync.ts';
import { WatchHub } from './watch-hub.ts';
import { applyOp, preconditionFailure, type WriteOp } from './write-op.ts';

export interface SqliteBackendOptions {
  /** Events a watcher may leave unread before its watch is ended (default 10,000). */
  watchQueueLimit?: number;
  /**
   * When a write is answered. 'full' (default): after its commit was fsynced, so it
   * survives a crash of the process and a power loss. 'normal': after its commit
   * reached the operating system (WAL mode without fsync per commit), so it survives
   * a crash or kill -9 of the process but not a power loss or kernel crash; for
   * disks where fsync is slow and the data is disposable.
   */
  synchronous?: 'full' | 'normal';
  /**
   * How a commit is made durable under 'full' (default: fdatasync of the WAL file, see
   * wal-sync.ts): done when it returns, or when its promise resolves; tests hold or fail it.
   */
  syncLog?: () => void | Promise<void>;
  /** Told how long each sync of the write-ahead log took, in seconds, and whether it ran on the event loop (metrics). */
  onWalSync?: (seconds: number, onLoop: boolean) => void;
  /** While this says so, the log is synced on libuv's thread pool rather than the event loop (wal-sync.ts). */
  syncLater?: () => boolean;
}

/** Bump when the tables change; a newer file is refused rather than misread. */
const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS history (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  value BLOB,
  create_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS history_by_key ON history (key, revision);
CREATE TABLE IF NOT EXISTS kv (
  key TEXT PRIMARY KEY,
  create_revision INTEGER NOT NULL,
  mod_revision INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS expiry (
  key TEXT PRIMARY KEY,
  at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('revision', ${INITIAL_REVISION}), ('compacted', 0), ('swept', 0);
`;

/** Revisions swept per compaction transaction; the event loop runs between them. */
const SWEEP_CHUNK = 10_000;

/** Keys fetched per query while skipping deleted keys in a list at an older revision. */
const LIST_AT_CHUNK = 256;
/** A read at a past revision first looks for writes to its range since then while there are at most this many revisions to look through. */
const UNCHANGED_SCAN_LIMIT = 10_000;

const SQLITE_BUSY = 5;

export class SqliteBackend implements Backend {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #writes: GroupCommit<WriteOp>;
  readonly #watches: WatchHub;
  #revision: number;
  #compacted: number;
  /** History below this revision holds only what reads at the compacted revision need. */
  #swept: number;
  /** The running compaction sweep; sweeps run one after the other. */
  #sweeping: Promise<void> = Promise.resolve();
  #closed = false;
  /** Makes a commit durable; undefined under synchronous 'normal'. */
  readonly #syncLog: (() => void | Promise<void>) | undefined;
  readonly #wal: WalSync;
  /** A commit is in the file but not yet synced: reads take the history at #revision, not the kv table. */
  #unsynced = false;
  /** Set when a sync failed: writes are refused from then on (see #commitBatch). */
  #failed: Error | undefined;
  /** The expiry table's due times, kept in memory: deleted through the group commit once due. */
  readonly #expiries: Expiries;

  /** Opens (creating if needed) the database file at `path`; it continues from the stored revision. */
  constructor(path: string, opts: SqliteBackendOptions = {}) {
    this.path = path;
    this.#db = openDatabase(path);
    this.#wal = new WalSync(`${path}-wal`, { observe: opts.onWalSync, later: opts.syncLater });
    this.#syncLog = opts.synchronous === 'normal' ? undefined : opts.syncLog ?? (() => this.#wal.sync());
    this.#revision = this.#meta('revision');
    this.#compacted = this.#meta('compacted');
    this.#swept = this.#meta('swept');
    this.#writes = new GroupCommit((ops) => this.#commitBatch(ops));
    this.#expiries = new Expiries((due) => {
      for (const { key, at } of due) this.#writes.submit({ type: 'delete', key, expectRevision: undefined, dueAt: at }).catch(() => {});
    });
    this.#readExpiries();
    this.#watches = new WatchHub(
      {
        currentRevision: () => this.#revision,
        compactedRevision: () => this.#compacted,
        eventsAfter: (prefix, after, through, limit) => this.#eventsAfter(prefix, after, through, limit),
      },
      { queueLimit: opts.watchQueueLimit },
    );
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.#checkOpen();
    const revision = readRevision(opts.revision, this.#revision, this.#compacted);
    if (revision === this.#revision && !this.#unsynced) return this.#current(key);
    const row = this.#sql('SELECT revision, value, create_revision, deleted FROM history WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1').get(key, revision);
    return row === undefined || row.deleted ? undefined : toKeyValue(key, row);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.#checkOpen();
    const revision = readRevision(opts.revision, this.#revision, this.#compacted);
    const range = listRange(prefix, opts.startAfter);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const current = revision === this.#revision && !this.#unsynced;
    const { items, more } = current ? this.#listCurrent(range, limit) : this.#listAt(range, revision, limit);
    let remaining = 0;
    if (more && opts.countRemaining !== false) {
      const rest = { ...range, after: (items[items.length - 1] as KeyValue).key };
      remaining = current || this.#unchangedSinceWithin(rest, revision) ? this.#countCurrent(rest) : this.#countAt(rest, revision);
    }
    return { items, revision, more, remaining };
  }

  create(key: string, value: Uint8Array, opts?: PutOptions): Promise<number> {
    return this.#writes.submit({ type: 'create', key, value: owned(value), ttlSeconds: opts?.ttlSeconds });
  }

  update(key: string, value: Uint8Array, expectRevision: number, opts?: PutOptions): Promise<number> {
    return this.#writes.submit({ type: 'update', key, value: owned(value), expectRevision, ttlSeconds: opts?.ttlSeconds });
  }

  delete(key: string, expectRevision?: number): Promise<number> {
    return this.#writes.submit({ type: 'delete', key, expectRevision });
  }

  watch(prefix: string, fromRevision: number): Watch {
    this.#checkOpen();
    return this.#watches.watch(prefix, fromRevision);
  }

  async currentRevision(): Promise<number> {
    this.#checkOpen();
    return this.#revision;
  }

  /** The synced revision: a commit waiting for its sync is not current yet (see #committed). */
  readonly currentRevisionNow = (): number => {
    this.#checkOpen();
    return this.#revision;
  };

  /**
   * Reads and watches below `revision` fail from now on (the compacted revision is
   * stored first); the rows they needed are then deleted in chunks, with the event
   * loop running between chunks, and the promise resolves when that is done.
   * Compacting at or below the compacted revision changes nothing.
   */
  async compact(revision: number): Promise<void> {
    this.#checkOpen();
    if (revision > this.#revision) throw futureRevision(revision, this.#revision);
    if (revision > this.#compacted) {
      this.#setMeta('compacted', revision);
      this.#compacted = revision;
    }
    const sweep = this.#sweeping.then(() => this.#sweep());
    this.#sweeping = sweep.catch(() => {}); // the next sweep runs even if this one failed
    await sweep;
  }

  /** Commits writes already submitted, ends every watch, and closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#expiries.close();
    await this.#writes.close();
    this.#watches.closeAll();
    await this.#sweeping;
    await this.#wal.close();
    this.#db.close();
  }

  /**
   * One group-commit batch: every op in order in one transaction, each with its own
   * outcome, answered once the commit is durable.
   */
  #commitBatch(ops: WriteOp[]): Array<number | Error> | Promise<Array<number | Error>> {
    const failed = this.#failed;
    if (failed !== undefined) return ops.map(() => failed);
    const results: Array<number | Error> = [];
    const events: StorageEvent[] = [];
    let revision = this.#revision;
    let expiriesChanged = false;
    try {
      this.#db.exec('BEGIN');
      for (const op of ops) {
        const existing = this.#currentForWrite(op.key);
        const failure = op.type === 'delete' && op.dueAt !== undefined && !this.#expiries.isDue(op.key, op.dueAt) ? notDue(op.key) : preconditionFailure(op, existing);
        if (failure !== undefined) {
          results.push(failure);
          continue;
        }
        revision++;
        const { kv, event } = applyOp(op, existing, revision);
        if (kv === undefined) {
          this.#sql('INSERT INTO history (revision, key, value, create_revision, deleted) VALUES (?, ?, NULL, ?, 1)').run(revision, op.key, event.kv.createRevision);
          this.#sql('DELETE FROM kv WHERE key = ?').run(op.key);
        } else {
          this.#sql('INSERT INTO history (revision, key, value, create_revision, deleted) VALUES (?, ?, ?, ?, 0)').run(revision, op.key, kv.value, kv.createRevision);
          this.#sql('INSERT INTO kv (key, create_revision, mod_revision) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET mod_revision = excluded.mod_revision').run(op.key, kv.createRevision, revision);
        }
        const due = this.#expiries.record(op);
        if (due !== undefined) {
          expiriesChanged = true;
          if (due === null) this.#sql('DELETE FROM expiry WHERE key = ?').run(op.key);
          else this.#sql('INSERT INTO expiry (key, at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET at = excluded.at').run(op.key, due);
        }
        events.push(event);
        results.push(revision);
      }
      if (revision !== this.#revision) this.#setMeta('revision', revision);
      this.#db.exec('COMMIT');
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      if (expiriesChanged) this.#readExpiries();
      const failure = unavailable(`sqlite write failed: ${(err as Error).message}`);
      return ops.map(() => failure);
    }
    if (this.#syncLog === undefined || revision === this.#revision) {
      this.#committed(revision, events);
      return results;
    }
    let synced: void | Promise<void>;
    try {
      synced = this.#syncLog();
    } catch (err) {
      return this.#syncFailed(ops, err);
    }
    if (synced === undefined) {
      this.#committed(revision, events);
      return results;
    }
    this.#unsynced = true;
    return synced.then(() => {
      this.#unsynced = false;
      this.#committed(revision, events);
      return results;
    }, (err: unknown) => this.#syncFailed(ops, err));
  }

  /**
   * The commit is in the file but perhaps not on the disk, and cannot be taken back. As
   * databases do after a failed fsync, writes are refused until a restart (which reads
   * what the file holds), and reads stay at the last durable revision: #unsynced stays
   * set (a sync that failed on the loop sets it here).
   */
  #syncFailed(ops: WriteOp[], err: unknown): Error[] {
    this.#unsynced = true;
    const failure = unavailable(`sqlite: syncing the write-ahead log failed, writes are refused until restart: ${(err as Error).message}`);
    this.#failed = failure;
    return ops.map(() => failure);
  }

  /** The batch's writes become visible: the revision moves and watchers get the events, in one step. */
  #committed(revision: number, events: StorageEvent[]): void {
    this.#revision = revision;
    this.#watches.publish(events);
  }

  #current(key: string): KeyValue | undefined {
    const row = this.#sql('SELECT k.mod_revision AS revision, k.create_revision, h.value FROM kv k JOIN history h ON h.revision = k.mod_revision WHERE k.key = ?').get(key);
    return row === undefined ? undefined : toKeyValue(key, row);
  }

  /**
   * The key's current version as a write needs it: its revisions for the precondition at
   * once, its value when first read. Only a delete's event and readers of an update's
   * `prev` read it (in this process none but the encrypting wrapper, as the event is
   * published); an apply's 19 KB value was read per commit only to be dropped. A value
   * read after a compaction swept its revision is an error, not an empty value.
   */
  #currentForWrite(key: string): KeyValue | undefined {
    const row = this.#sql('SELECT mod_revision, create_revision FROM kv WHERE key = ?').get(key);
    if (row === undefined) return undefined;
    const modRevision = row.mod_revision as number;
    const readValue = (): Uint8Array => {
      const found = this.#sql('SELECT value FROM history WHERE revision = ?').get(modRevision);
      if (found === undefined) throw compacted(modRevision, this.#compacted);
      return found.value === null ? new Uint8Array(0) : (found.value as Uint8Array);
    };
    let value: Uint8Array | undefined;
    return {
      key, createRevision: row.create_revision as number, modRevision,
      get value(): Uint8Array {
        return (value ??= readValue());
      },
    };
  }

  #listCurrent(range: KeyRange, limit: number): { items: KeyValue[]; more: boolean } {
    const where = rangeWhere('k.key', range);
    const rows = this.#sql(`SELECT k.key, k.mod_revision AS revision, k.create_revision, h.value FROM kv k JOIN history h ON h.revision = k.mod_revision WHERE ${where.sql} ORDER BY k.key LIMIT ?`).all(...where.params, limit === Infinity ? -1 : limit + 1);
    const items = rows.slice(0, limit).map((row) => toKeyValue(row.key as string, row));
    return { items, more: rows.length > limit };
  }

  #countCurrent(range: KeyRange): number {
    const where = rangeWhere('key', range);
    return this.#sql(`SELECT count(*) AS n FROM kv WHERE ${where.sql}`).get(...where.params)?.n as number;
  }

  /**
   * Each key's latest version at `revision`, from the (key, revision) index, skipping
   * keys that were deleted (or not yet created) then: O((limit + skipped) log n).
   */
  #listAt(range: KeyRange, revision: number, limit: number): { items: KeyValue[]; more: boolean } {
    // Nothing in the range written since `revision` (the usual case for a paged list or a
    // cache filling on a quiet prefix): the current rows are the rows at it, and reading
    // them costs a third less than finding each key's version at the revision.
    if (this.#unchangedSinceWithin(range, revision)) return this.#listCurrent(range, limit);
    const items: KeyValue[] = [];
    let cursor = range;
    for (;;) {
      const where = rangeWhere('key', cursor);
      const chunk = limit === Infinity ? LIST_AT_CHUNK : Math.max(LIST_AT_CHUNK, limit + 1 - items.length);
      // Each key's latest version at `revision` and that version's row, in one statement.
      const latest = this.#sql(
        `SELECT v.key AS key, h.revision AS revision, h.value AS value, h.create_revision AS create_revision, h.deleted AS deleted FROM (SELECT key, max(revision) AS revision FROM history WHERE ${where.sql} AND revision <= ? GROUP BY key ORDER BY key LIMIT ?) v JOIN history h ON h.revision = v.revision ORDER BY v.key`,
      ).all(...where.params, revision, chunk);
      for (const row of latest) {
        if (row.deleted) continue;
        if (items.length === limit) return { items, more: true };
        items.push(toKeyValue(row.key as string, row));
      }
      if (latest.length < chunk) return { items, more: false };
      cursor = { ...range, after: (latest[latest.length - 1] as Record<string, SQLOutputValue>).key as string };
    }
  }

  /**
   * Whether no key in the range was written (created, changed, deleted) after `revision`,
   * committed or not yet synced; false without looking when that would mean walking more
   * than UNCHANGED_SCAN_LIMIT revisions.
   */
  #unchangedSinceWithin(range: KeyRange, revision: number): boolean {
    if (this.#revision + 1 - revision > UNCHANGED_SCAN_LIMIT) return false;
    // "+key": walk the revisions after `revision` (the primary key), not the key index.
    const where = rangeWhere('+key', range);
    return this.#sql(`SELECT 1 FROM history WHERE revision > ? AND ${where.sql} LIMIT 1`).get(revision, ...where.params) === undefined;
  }

  #countAt(range: KeyRange, revision: number): number {
    const where = rangeWhere('key', range);
    const sql = `SELECT count(*) AS n FROM (SELECT max(revision) AS revision FROM history WHERE ${where.sql} AND revision <= ? GROUP BY key) v JOIN history h ON h.revision = v.revision WHERE h.deleted = 0`;
    return this.#sql(sql).get(...where.params, revision)?.n as number;
  }

  #eventsAfter(prefix: string, after: number, through: number, limit: number): StorageEvent[] {
    // "+key": compare the key without its index, so SQLite walks the revision range
    // (the primary key) rather than every version of every key under the prefix.
    const where = rangeWhere('+key', listRange(prefix, undefined));
    const rows = this.#sql(`SELECT revision, key, value, create_revision, deleted FROM history WHERE revision > ? AND revision <= ? AND ${where.sql} ORDER BY revision LIMIT ?`).all(after, through, ...where.params, limit);
    const events: StorageEvent[] = [];
    for (const row of rows) {
      const key = row.key as string;
      const revision = row.revision as number;
      const before = this.#sql('SELECT revision, value, create_revision, deleted FROM history WHERE key = ? AND revision < ? ORDER BY revision DESC LIMIT 1').get(key, revision);
      const prev = before === undefined || before.deleted ? undefined : toKeyValue(key, before);
      if (!row.deleted) {
        const kv = toKeyValue(key, row);
        events.push(prev === undefined ? { type: 'put', kv, revision } : { type: 'put', kv, prev, revision });
      } else if (prev !== undefined) {
        events.push({ type: 'delete', kv: { ...prev, modRevision: revision }, prev, revision });
      }
    }
    return events;
  }

  /**
   * Delete, for the revisions in (swept, compacted], the versions those revisions
   * superseded, and their deletion rows: what is left at or below the compacted
   * revision is each live key's version at that revision, which reads at it and
   * the prev values of later events need. Each version is superseded exactly once,
   * so this only ever looks at the revisions written since the last sweep.
   */
  async #sweep(): Promise<void> {
    while (this.#swept < this.#compacted && !this.#closed) {
      const from = this.#swept;
      const through = Math.min(this.#compacted, from + SWEEP_CHUNK);
      try {
        this.#db.exec('BEGIN');
        this.#sql(`DELETE FROM history WHERE revision IN (
            SELECT (SELECT p.revision FROM history p WHERE p.key = h.key AND p.revision < h.revision ORDER BY p.revision DESC LIMIT 1)
            FROM history h WHERE h.revision > ? AND h.revision <= ?)`).run(from, through);
        this.#sql('DELETE FROM history WHERE revision > ? AND revision <= ? AND deleted = 1').run(from, through);
        this.#setMeta('swept', through);
        this.#db.exec('COMMIT');
      } catch (err) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw isStorageError(err) ? err : unavailable(`sqlite compaction failed: ${(err as Error).message}`);
      }
      this.#swept = through;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The due times as stored (at open, and after a transaction that changed them failed). */
  #readExpiries(): void {
    this.#expiries.clear();
    for (const row of this.#sql('SELECT key, at FROM expiry').all()) this.#expiries.set(row.key as string, row.at as number);
  }

  #meta(name: string): number {
    return this.#sql('SELECT value FROM meta WHERE name = ?').get(name)?.value as number;
  }

  #setMeta(name: string, value: number): void {
    this.#sql('UPDATE meta SET value = ? WHERE name = ?').run(value, name);
  }

  /** Statements are prepared once and reused. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (statement === undefined) {
      statement = this.#db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  #checkOpen(): void {
    if (this.#closed) throw unavailable('the storage backend is closed');
  }
}

function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    // This process is the only one using the file: the revision counter and the
    // watches live in its memory. Exclusive locking makes a second server on the
    // same file fail at start rather than hand out duplicate revisions; in WAL mode
    // it also means no shared-memory index file.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    if (mode !== 'wal') throw new Error(`could not switch ${path} to WAL mode (journal mode is ${String(mode)})`);
    // NORMAL: SQLite syncs around checkpoints only; the per-commit sync of FULL is
    // the backend's own (WalSync), off the event loop while the disk is slow.
    db.exec('PRAGMA synchronous = NORMAL');
    // BEGIN EXCLUSIVE takes the write lock now, which locking_mode keeps until close.
    db.exec('BEGIN EXCLUSIVE');
    const version = db.prepare('PRAGMA user_version').get()?.user_version as number;
    if (version > SCHEMA_VERSION) throw new Error(`${path} was written by a newer Plinth (schema ${version}, this one knows ${SCHEMA_VERSION})`);
    db.exec(SCHEMA);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db.close();
    if ((err as { errcode?: number }).errcode === SQLITE_BUSY) throw unavailable(`${path} is in use by another process`);
    throw err;
  }
}

/** The WHERE condition for keys in `range` (`column` may be an expression such as "+key"). */
function rangeWhere(column: string, range: KeyRange): { sql: string; params: SQLInputValue[] } {
  const sql = [range.after === undefined ? `${column} >= ?` : `${column} > ?`];
  const params: SQLInputValue[] = [range.after ?? range.from];
  if (range.end !== undefined) {
    sql.push(`${column} < ?`);
    params.push(range.end);
  }
  return { sql: sql.join(' AND '), params };
}

/** A row with revision, create_revision and value columns as a KeyValue. */
function toKeyValue(key: string, row: Record<string, SQLOutputValue>): KeyValue {
  // node:sqlite may hand back an empty blob as NULL.
  const value = row.value === null ? new Uint8Array(0) : (row.value as Uint8Array);
  return { key, value, createRevision: row.create_revision as number, modRevision: row.revision as number };
}

/**
 * The bytes a write keeps: the caller's array itself when it spans its whole buffer (the
 * caller hands it over and must not change it afterwards; the watch cache recognises the
 * bytes its Store encoded by their identity), else a copy, so that a view into a larger
 * buffer (Buffer's shared pool) does not keep that buffer alive.
 */
function owned(value: Uint8Array): Uint8Array {
  return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice();
}
