import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';

type Bindings = Record<string, unknown>;
type ChildOptions = { level?: string; serializers?: unknown };
type LogFn = (...args: unknown[]) => void;
type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * A request's logger (`req.log`) that makes its pino child (with the request id) at its first
 * line, not at every request. Fastify makes the child of every request up front, which was a
 * visible part of a small request's CPU (pino copies and serializes the bindings and the
 * serializers); most requests write nothing below the configured level but the one request line
 * (src/app.ts, at `info`). Every line is the child's, so it is the same as before: same bindings,
 * same level, same serializers and redaction.
 */
class LazyRequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindingsOf: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get real(): Logger {
    this.made ??= this.parent.child(this.bindingsOf, this.options as never);
    return this.made;
  }

  /** Whether a line at `level` would be written: the parent's level unless the route set one. */
  isLevelEnabled(level: string): boolean {
    if (this.made || this.options.level !== undefined) return this.real.isLevelEnabled(level);
    return this.parent.isLevelEnabled(level);
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  get msgPrefix(): string | undefined {
    return this.real.msgPrefix;
  }

  child(bindings: Bindings, options?: ChildOptions): Logger {
    return this.real.child(bindings, options as never);
  }

  bindings(): Bindings {
    return this.real.bindings();
  }

  silent(): void {}

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const real = this.real;
    (real[level] as LogFn).apply(real, args);
  }
}

/** Fastify's `childLoggerFactory`: the lazy request logger above. */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(
    logger as unknown as Logger,
    bindings,
    options,
  ) as unknown as FastifyBaseLogger;
}
