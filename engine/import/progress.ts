import cliProgress from 'cli-progress';

/**
 * Progress on a terminal: one bar per type being written (objects done of the source's count, rate and
 * time left), drawn by cli-progress on stderr; nothing at all when stderr is not a terminal (CI logs,
 * pipes), where only the summary at the end is printed.
 */

export interface Progress {
  /** A phase starts for a type ("write", "second pass", "verify"). */
  start(key: string, label: string, total: number): void;
  advance(key: string, n: number): void;
  finish(key: string): void;
  /** A line above the bars (or on stderr when there are none): a warning worth seeing at once. */
  note(line: string): void;
  stop(): void;
}

const SILENT: Progress = { start() {}, advance() {}, finish() {}, note: (line) => console.error(line), stop() {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT;
  const multi = new cliProgress.MultiBar(
    {
      stream,
      format: ' {label} |{bar}| {value}/{total} | {speed} obj/s | {eta_formatted} left',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 20,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, { bar: cliProgress.SingleBar; started: number; done: number }>();
  const speed = (b: { started: number; done: number }) => Math.round(b.done / Math.max((Date.now() - b.started) / 1000, 0.001));
  return {
    start(key, label, total) {
      const bar = multi.create(Math.max(total, 0), 0, { label: label.padEnd(40).slice(0, 40), speed: 0 });
      bars.set(key, { bar, started: Date.now(), done: 0 });
    },
    advance(key, n) {
      const b = bars.get(key);
      if (!b) return;
      b.done += n;
      b.bar.increment(n, { speed: speed(b) });
    },
    finish(key) {
      const b = bars.get(key);
      if (!b) return;
      b.bar.update(b.bar.getTotal(), { speed: speed(b) });
      // Finished bars leave the screen: a hundred types would not fit on it.
      multi.remove(b.bar);
      bars.delete(key);
    },
    note(line) {
      multi.log(`${line}\n`);
    },
    stop() {
      multi.stop();
    },
  };
}
