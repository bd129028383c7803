// Plinth's log lines, in kube-apiserver's two formats (`--log-format`): klog's text
// (`I1128 14:10:00.123456   12345 plinth] message`) or JSON lines as klog's JSON format
// writes them (`{"ts":…,"v":0,"msg":"…"}`), one line per event worth a line.

export type LogFormat = 'text' | 'json';

/** klog's `-v` while serving: PUT /debug/flags/v changes it, and what it governs reads it at once. */
export interface Verbosity {
  level: number;
}

export interface Logger {
  /** An informational line at verbosity `v` (written when -v is at least that). */
  info(message: string, v?: number): void;
  /** An error line (always written). */
  error(message: string): void;
  /** Whether lines at verbosity `v` are written. */
  enabled(v: number): boolean;
  /** The verbosity the lines are filtered by, starting at the one given. */
  readonly verbosity: Verbosity;
}

function klogTime(now: Date): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds(), 3)}000`;
}

export function createLogger(opts: { format: LogFormat; verbosity: number; write?: (line: string) => void }): Logger {
  const write = opts.write ?? ((line: string) => void process.stderr.write(line));
  const verbosity: Verbosity = { level: opts.verbosity };
  // Lines at 0 are klog.Info's, written whatever the verbosity (a negative one set at run time too).
  const enabled = (v: number) => v <= 0 || v <= verbosity.level;
  const line = (severity: 'I' | 'E', message: string, v: number) => {
    const now = new Date();
    if (opts.format === 'json') {
      const entry: Record<string, unknown> = { ts: now.getTime() / 1000, v, msg: message };
      if (severity === 'E') {
        delete entry.v;
        entry.err = message;
      }
      return `${JSON.stringify(entry)}\n`;
    }
    return `${severity}${klogTime(now)} ${String(process.pid).padStart(7)} plinth] ${message}\n`;
  };
  return {
    info(message, v = 0) {
      if (enabled(v)) write(line('I', message, v));
    },
    error(message) {
      write(line('E', message, 0));
    },
    enabled,
    verbosity,
  };
}
