/**
 * Runs stop once on the first SIGTERM or SIGINT. Later signals (a supervisor sending SIGTERM to the whole
 * process group and the cluster primary forwarding it too, or an impatient ^C) do not interrupt it.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('stopping failed:', e);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
