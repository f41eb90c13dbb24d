/** Cases per surface and the status classes each saw: the table printed at the end of a run. */
export class Tally {
  private rows = new Map<string, Map<string, number>>();

  add(surface: string, status: number, error?: string): void {
    let row = this.rows.get(surface);
    if (!row) this.rows.set(surface, (row = new Map()));
    const cls = error ? 'none' : `${Math.floor(status / 100)}xx`;
    row.set(cls, (row.get(cls) ?? 0) + 1);
  }

  table(): string {
    const classes = ['2xx', '3xx', '4xx', '5xx', 'none'];
    const lines = [['surface', 'cases', ...classes].map((c, i) => (i ? c.padStart(6) : c.padEnd(14))).join('')];
    let total = 0;
    const sums = new Map<string, number>();
    for (const [surface, row] of [...this.rows].sort(([a], [b]) => a.localeCompare(b))) {
      const n = [...row.values()].reduce((s, x) => s + x, 0);
      total += n;
      for (const c of classes) sums.set(c, (sums.get(c) ?? 0) + (row.get(c) ?? 0));
      lines.push([surface.padEnd(14), String(n).padStart(6), ...classes.map((c) => String(row.get(c) ?? 0).padStart(6))].join(''));
    }
    lines.push(['total'.padEnd(14), String(total).padStart(6), ...classes.map((c) => String(sums.get(c) ?? 0).padStart(6))].join(''));
    return lines.join('\n');
  }
}
