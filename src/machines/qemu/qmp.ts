import net from 'node:net';

/**
 * A minimal client of QEMU's machine protocol (QMP: JSON lines over a unix socket): the greeting,
 * `qmp_capabilities`, then commands answered in order. Hand-written because the protocol is a
 * page long and no maintained npm package speaks it; events arriving between answers are kept.
 */
export class QmpClient {
  private buffer = '';
  private readonly waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  private greeted: Promise<void>;
  private closedError: Error | undefined;
  readonly events: { event: string; data?: unknown }[] = [];

  private constructor(private readonly socket: net.Socket) {
    let greet: () => void = () => {};
    let fail: (e: Error) => void = () => {};
    this.greeted = new Promise<void>((resolve, reject) => {
      greet = resolve;
      fail = reject;
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let i = this.buffer.indexOf('\n'); i >= 0; i = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, i).trim();
        this.buffer = this.buffer.slice(i + 1);
        if (line === '') continue;
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        if ('QMP' in msg) greet();
        else if ('event' in msg) this.events.push(msg as { event: string; data?: unknown });
        else if ('return' in msg) this.waiting.shift()?.resolve(msg.return);
        else if ('error' in msg) {
          const e = msg.error as { class?: string; desc?: string };
          this.waiting.shift()?.reject(new QmpError(e.class ?? 'GenericError', e.desc ?? 'error'));
        }
      }
    });
    const onEnd = (err?: Error) => {
      this.closedError = err ?? new Error('QMP connection closed');
      fail(this.closedError);
      for (const w of this.waiting.splice(0)) w.reject(this.closedError);
    };
    socket.on('error', onEnd);
    socket.on('close', () => onEnd());
  }

  /** Connects, waits for the greeting and leaves negotiation mode. */
  static async connect(path: string, timeoutMs = 5000): Promise<QmpClient> {
    const socket = net.connect(path);
    const client = new QmpClient(socket);
    const timer = setTimeout(
      () => socket.destroy(new Error(`QMP: no greeting within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      await client.greeted;
      await client.execute('qmp_capabilities');
      return client;
    } catch (err) {
      socket.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  execute<T = unknown>(
    command: string,
    args?: Record<string, unknown>,
    timeoutMs = 10_000,
  ): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`QMP: ${command} had no answer within ${timeoutMs} ms`));
        this.socket.destroy();
      }, timeoutMs);
      this.waiting.push({
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.socket.write(
        `${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`,
      );
    });
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

export class QmpError extends Error {
  override readonly name = 'QmpError';
  constructor(
    readonly errorClass: string,
    desc: string,
  ) {
    super(desc);
  }
}

/** Opens a connection, runs `fn`, closes. */
export async function withQmp<T>(path: string, fn: (qmp: QmpClient) => Promise<T>): Promise<T> {
  const qmp = await QmpClient.connect(path);
  try {
    return await fn(qmp);
  } finally {
    qmp.close();
  }
}
