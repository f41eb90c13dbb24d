import { DefinitionError, DefinitionErrors } from './definition-error';

/**
 * Gathers the faults of a reading of the definitions, so one run reports every file's faults instead of
 * stopping at the first. Each independent piece of checking runs through `attempt`: its fault is kept
 * and checking goes on with the next piece.
 */
export class FaultCollector {
  private readonly faults: DefinitionError[] = [];
  private readonly seen = new Set<string>();
  /** attempt() calls under way, and whether the innermost one has followed a relation left unresolved. */
  private depth = 0;
  private followedUnresolved = false;

  get count(): number {
    return this.faults.length;
  }

  /** Whether a fault was kept in the file at the pointer or under it. */
  has(file: string, pointer: string): boolean {
    return this.faults.some((f) => f.file === file && (f.pointer === pointer || f.pointer.startsWith(`${pointer}/`)));
  }

  add(file: string, pointer: string, reason: string): void {
    this.keep(new DefinitionError(file, pointer, reason));
  }

  /**
   * Called when checking follows a relation whose target could not be resolved (its own fault is kept
   * already): what the piece of checking under way then finds at fault is a consequence, and is dropped.
   */
  followUnresolved(): void {
    this.followedUnresolved = true;
  }

  private keep(e: DefinitionError): void {
    if (this.depth > 0 && this.followedUnresolved) return;
    if (e instanceof DefinitionErrors) {
      for (const one of e.errors) this.keep(one);
      return;
    }
    if (this.seen.has(e.message)) return;
    this.seen.add(e.message);
    this.faults.push(e);
  }

  /**
   * Runs one piece of checking. A DefinitionError is kept as it is; another Error is kept at `file` and
   * `pointer` (engine stages such as filter compilation throw plain errors naming only what is wrong).
   * A TypeError after some fault was already found is the consequence of that fault (a relation left
   * without its target), not a fault of its own: it is dropped. Without an earlier fault it is an
   * engine bug and is thrown on, stack and all. Faults of a piece that followed an unresolved relation
   * (followUnresolved) are dropped too.
   */
  attempt<T>(file: string, pointer: string, fn: () => T): T | undefined {
    const outer = this.followedUnresolved;
    this.followedUnresolved = false;
    this.depth++;
    try {
      return fn();
    } catch (e) {
      if (e instanceof DefinitionError) this.keep(e);
      else if (e instanceof TypeError) {
        if (!this.faults.length) throw e;
      } else if (e instanceof Error) this.keep(new DefinitionError(file, pointer, e.message));
      else throw e;
      return undefined;
    } finally {
      this.depth--;
      this.followedUnresolved = outer;
    }
  }

  /** Throws every fault kept, by file name (a file's own in the order found), if there is any. */
  throwIfAny(): void {
    if (!this.faults.length) return;
    const sorted = this.faults.map((f, i) => ({ f, i })).sort((a, b) => (a.f.file < b.f.file ? -1 : a.f.file > b.f.file ? 1 : a.i - b.i)).map((x) => x.f);
    throw new DefinitionErrors(sorted);
  }
}
