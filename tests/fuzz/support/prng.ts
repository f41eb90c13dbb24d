/**
 * A small seeded generator (mulberry32): the same seed gives the same sequence on every machine, so a
 * fuzz case is a pure function of (seed, case number) and can be replayed alone.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** One of the entries, each as likely as its weight. */
  weighted<T>(entries: ReadonlyArray<readonly [number, T]>): T {
    const total = entries.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of entries) {
      if ((r -= w) < 0) return v;
    }
    return entries[entries.length - 1]![1];
  }

  /** Up to `n` distinct items, in a random order. */
  some<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length) out.push(pool.splice(this.int(pool.length), 1)[0]!);
    return out;
  }
}

/** The generator of one case: its seed mixes the run's seed and the case number (splitmix32's finaliser). */
export function caseRng(seed: number, caseNo: number): Prng {
  let h = (seed ^ Math.imul(caseNo + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return new Prng((h ^ (h >>> 16)) >>> 0);
}
