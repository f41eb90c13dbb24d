import net from 'node:net';

/**
 * A TCP proxy between the server under test and PostgreSQL that plays the database's failures without
 * touching the real server other tests use:
 * - refuse: the port is closed (new connections: ECONNREFUSED) and every open connection is reset;
 * - blackhole: connections open but nothing passes either way, as with a frozen (SIGSTOPped) server;
 * - pass: back to normal (connections reset earlier stay gone; black-holed ones stay silent).
 */
export class FaultProxy {
  private server: net.Server | null = null;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket; silent: boolean }>();
  private mode: 'pass' | 'blackhole' = 'pass';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens (on the same port as before, after a refuse). */
  async start(): Promise<number> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    const pair = { client, upstream, silent: this.mode === 'blackhole' };
    this.pairs.add(pair);
    const forget = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (b: Buffer) => pair.silent || upstream.write(b));
    upstream.on('data', (b: Buffer) => pair.silent || client.write(b));
    for (const s of [client, upstream]) {
      s.on('error', forget);
      s.on('close', forget);
    }
  }

  /** Connections open now (through to PostgreSQL). */
  get connections(): number {
    return this.pairs.size;
  }

  async refuse(): Promise<void> {
    const server = this.server;
    this.server = null;
    // close() stops accepting at once but calls back only when every connection is gone: reset them first.
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const { client, upstream } of [...this.pairs]) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    await closed;
  }

  blackhole(): void {
    this.mode = 'blackhole';
    for (const p of this.pairs) p.silent = true;
  }

  async pass(): Promise<void> {
    this.mode = 'pass';
    if (!this.server) await this.start();
  }

  async close(): Promise<void> {
    await this.refuse();
  }
}
