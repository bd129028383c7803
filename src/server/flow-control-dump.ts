// API Priority and Fairness' debug dumps, as upstream serves them under
// /debug/api_priority_and_fairness/: a row per priority level, per queue, per waiting
// request, in columns separated by ",\t" and lined up as Go's tabwriter lines them up
// (minimum width 8, padding 1).
import type { LevelDump } from './priority-levels.ts';

/** The dump the path names (`dump_priority_levels`, `dump_queues`, `dump_requests`), or undefined. */
export function flowControlDump(levels: LevelDump[], name: string, query: URLSearchParams): string | undefined {
  switch (name) {
    case 'dump_priority_levels':
      return priorityLevels(levels);
    case 'dump_queues':
      return queues(levels);
    case 'dump_requests':
      return requests(levels, (query.get('includeRequestDetails') ?? '') !== '');
    default:
      return undefined;
  }
}

function priorityLevels(levels: LevelDump[]): string {
  const rows = [['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests']];
  for (const level of levels) {
    rows.push([level.name, String(level.activeQueues), String(level.idle), String(!level.configured), String(level.waiting), String(level.executing),
      String(level.dispatched), String(level.rejected), String(level.timedOut), String(level.cancelled)]);
  }
  return tabulate(rows);
}

/** A row per queue, its virtual times in seat-seconds. */
function queues(levels: LevelDump[]): string {
  const rows = [['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum']];
  for (const level of levels) {
    level.queues.forEach((queue, index) => {
      const initial = queue.waiting.reduce((sum, w) => sum + w.work.initialSeats, 0);
      const most = queue.waiting.reduce((sum, w) => sum + Math.max(w.work.initialSeats, w.work.finalSeats), 0);
      rows.push([level.name, String(index), String(queue.waiting.length), String(queue.executing), String(queue.seatsInUse), seatSeconds(queue.nextDispatchR), String(initial), String(most), seatSeconds(queue.waitingWork)]);
    });
  }
  return tabulate(rows);
}

function requests(levels: LevelDump[], details: boolean): string {
  const header = ['PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency'];
  const rows = [details ? [...header, 'UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource'] : header];
  for (const level of levels) {
    level.queues.forEach((queue, queueIndex) => {
      queue.waiting.forEach((waiting, index) => {
        const row = [level.name, waiting.schema, String(queueIndex), String(index), waiting.flow, rfc3339Nano(waiting.arrived),
          String(waiting.work.initialSeats), String(waiting.work.finalSeats), goDuration(waiting.work.additionalLatencyMs)];
        const r = waiting.request;
        if (details) row.push(r?.user ?? '', r?.verb ?? '', r?.path ?? '', r?.namespace ?? '', r?.name ?? '', r === undefined ? '' : r.group === '' ? r.version : `${r.group}/${r.version}`, r?.resource ?? '', r?.subresource ?? '');
        rows.push(row);
      });
    });
  }
  return tabulate(rows);
}

/** Rows of cells joined by ",\t", each column but the last padded to its widest cell plus one (at least 8), as Go's tabwriter. */
export function tabulate(rows: string[][]): string {
  const widths: number[] = [];
  const cells = rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? `${cell},` : cell)));
  for (const row of cells) {
    for (let i = 0; i < row.length - 1; i++) widths[i] = Math.max(widths[i] ?? 8, [...row[i]!].length + 1);
  }
  return cells.map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]! - [...cell].length + cell.length) : cell)).join('')).join('\n') + '\n';
}

/** Upstream's SeatSeconds.String: eight decimals and `ss`. */
function seatSeconds(value: number): string {
  const scaled = Math.max(0, Math.round(value * 1e8));
  const whole = Math.floor(scaled / 1e8);
  return `${whole}.${String(scaled - whole * 1e8).padStart(8, '0')}ss`;
}

/** Go's time.RFC3339Nano in UTC: the fraction's trailing zeros dropped. */
function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** Go's Duration.String for the few milliseconds a write's fan-out is held. */
function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const trim = (n: number) => String(Number(n.toFixed(9)));
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  return `${trim(ms / 1000)}s`;
}
