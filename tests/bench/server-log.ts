/**
 * What the server printed that looks like a failure (5xx stack traces and the like), grouped so the report can
 * say precisely what misbehaved: the first line of each distinct message with how often it came.
 */
export interface LoggedError {
  message: string;
  count: number;
  /** The lines after the first occurrence (stack frames), for the report. */
  detail: string[];
}

const REQUEST_ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

export function loggedErrors(log: string, max = 10): LoggedError[] {
  const lines = log.split('\n');
  const found = new Map<string, LoggedError>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Indented lines are stack frames or the fields of a dumped error object, shown under their first line.
    if (/^\s/.test(line) || !/error|failed|exception|unhandled/i.test(line)) continue;
    const key = line.replace(REQUEST_ID, '<id>').replace(/\d+/g, 'N').slice(0, 300);
    const seen = found.get(key);
    if (seen) {
      seen.count++;
      continue;
    }
    const detail: string[] = [];
    for (let j = i + 1; j < lines.length && detail.length < 4 && /^\s+at /.test(lines[j]!); j++) detail.push(lines[j]!.trim());
    found.set(key, { message: line.slice(0, 400), count: 1, detail });
  }
  return [...found.values()].sort((a, b) => b.count - a.count).slice(0, max);
}
