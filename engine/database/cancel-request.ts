import net from 'node:net';

/** The protocol's CancelRequest code (PostgreSQL's protocol 1234.5678). */
const CANCEL_REQUEST_CODE = 80877102;

export interface CancelTarget {
  /** Host name, address, or a Unix socket directory (starts with '/'). */
  host: string;
  port: number;
  /** From the server's BackendKeyData at start-up: through PgBouncer, PgBouncer's own key for this client. */
  processID: number;
  secretKey: number;
}

/**
 * Sends the protocol's CancelRequest on a fresh connection to where the client connected. Unlike
 * `SELECT pg_cancel_backend(pid)`, it names the client's key rather than a server process id, so a pooler
 * (PgBouncer) forwards it to whichever server connection runs that client's query; and it needs no
 * authentication nor a free server connection. Whether a query was cancelled the caller learns from that
 * query's own error.
 *
 * The server (or pooler) answers nothing and closes the connection once it has handled the request; this
 * side must not close first, as libpq never does: PgBouncer 1.18 exits with "disconnect_client(): bad client
 * state: 0" when a cancel client hangs up while its cancel is still being forwarded (pgbouncer/pgbouncer#801,
 * fixed after 1.18). So no half-close after the message; the socket is only destroyed once the other side
 * ended it, or after timeoutMs (longer than PgBouncer's cancel_wait_timeout, 10 s, which ends it first).
 */
export function sendCancelRequest(target: CancelTarget, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = target.host.startsWith('/')
      ? net.connect({ path: `${target.host}/.s.PGSQL.${target.port}` })
      : net.connect({ host: target.host, port: target.port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer to the cancel request within ${timeoutMs} ms`)));
    socket.on('connect', () => {
      const message = Buffer.alloc(16);
      message.writeInt32BE(16, 0);
      message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      message.writeInt32BE(target.processID, 8);
      message.writeInt32BE(target.secretKey, 12);
      socket.write(message);
    });
    // The other side closed: the request was handled.
    socket.on('end', () => socket.destroy());
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (!hadError) resolve();
    });
    socket.resume();
  });
}
