import net from 'node:net';

/** Which client message to cut at, and whether it still reaches PostgreSQL. */
export interface Cut {
  /** Matched against the SQL of a simple query ('Q') or of a Parse ('P'). */
  sql: RegExp;
  /** true: the message is forwarded, then the connection is cut (the answer never comes back). */
  forward: boolean;
}

/**
 * A TCP proxy between the app and PostgreSQL that reads the frontend protocol's messages (a startup
 * packet, then a type byte and a length each) and, when armed, cuts the connection at the first message
 * whose SQL matches: the app's socket is destroyed at once and PostgreSQL's is half-closed after what was
 * forwarded, so the server still reads (and runs) a forwarded COMMIT while its answer is lost.
 * pg sends COMMIT as a simple query ('Q' "COMMIT;"), a statement with values as Parse/Bind/Execute.
 */
export class CuttingProxy {
  private server: net.Server | null = null;
  private armed: Cut | null = null;
  private readonly sockets = new Set<net.Socket>();
  /** SQL of the messages cut so far. */
  readonly cuts: string[] = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<number> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Cuts the next connection that sends a matching message (once). */
  arm(cut: Cut): void {
    this.armed = cut;
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    let cut = false;
    const forget = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (cut) return;
      pending = Buffer.concat([pending, chunk]);
      // Whole messages only: forwarded one by one, each looked at before it goes.
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) return;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (!started) {
          // SSLRequest (80877103) is answered by the server and followed by the real startup packet.
          started = message.length !== 8 || message.readInt32BE(4) !== 80877103;
          upstream.write(message);
          continue;
        }
        const text = this.sqlOf(message);
        const armed = this.armed;
        if (armed && text !== null && armed.sql.test(text)) {
          this.armed = null;
          this.cuts.push(text);
          cut = true;
          client.destroy();
          if (armed.forward) upstream.end(message);
          else upstream.destroy();
          return;
        }
        upstream.write(message);
      }
    });
    upstream.on('data', (b: Buffer) => cut || client.write(b));
    for (const s of [client, upstream]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        if (!cut) forget();
        else this.sockets.delete(s);
      });
    }
  }

  /** The SQL text of a simple query or a Parse message, else null. */
  private sqlOf(message: Buffer): string | null {
    const type = String.fromCharCode(message[0]!);
    if (type === 'Q') return message.subarray(5, message.indexOf(0, 5)).toString('utf8');
    if (type === 'P') {
      const nameEnd = message.indexOf(0, 5);
      return message.subarray(nameEnd + 1, message.indexOf(0, nameEnd + 1)).toString('utf8');
    }
    return null;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
