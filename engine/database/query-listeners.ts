import type { QueryEvent } from './db';

/** The 'query' listeners of one database handle; each is told of every statement before it runs. */
export class QueryListeners {
  private readonly listeners: Array<(q: QueryEvent) => void> = [];

  add(listener: (q: QueryEvent) => void): void {
    this.listeners.push(listener);
  }

  emit(sql: string, bindings: readonly unknown[]): void {
    for (const l of this.listeners) l({ sql, bindings });
  }
}
