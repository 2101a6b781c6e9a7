import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogFormat, LogLevel } from './config/config.js';

/** Paths that may hold secrets; they are never logged. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'password',
  '*.password',
  'root_pass',
  '*.root_pass',
  'secret',
  '*.secret',
  'client_secret',
];

/**
 * pino-pretty's stream, synchronous so its lines and the start-up lines written with
 * console.log come in order. Loaded only when used: a JSON logger pays nothing for it.
 */
function prettyStream(destination?: NodeJS.WritableStream): DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as (opts: Record<string, unknown>) => DestinationStream;
  return pretty({
    colorize: true,
    sync: true,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    ...(destination ? { destination } : {}),
  });
}

/** Whether the logs are written for a person: `pretty`, or `auto` on a terminal. */
export function isPretty(format: LogFormat, tty: boolean = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && tty);
}

/** The process's logger: JSON lines on stdout, or pino-pretty's (`destination`: tests). */
export function createLogger(
  level: LogLevel,
  format: LogFormat = 'json',
  destination?: NodeJS.WritableStream,
): Logger {
  const options = {
    level,
    base: { service: 'stratus' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  if (isPretty(format)) return pino(options, prettyStream(destination));
  return destination ? pino(options, destination as DestinationStream) : pino(options);
}

/** Child loggers by subsystem, declared once. */
export function subsystem(root: Logger, name: 'http' | 'db' | 'jobs' | 'cli' | string): Logger {
  return root.child({ subsystem: name });
}
