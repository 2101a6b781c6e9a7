import pino, { type Logger } from 'pino';
import type { LogLevel } from './config/config.js';

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

export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'stratus' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  });
}

/** Child loggers by subsystem, declared once. */
export function subsystem(root: Logger, name: 'http' | 'db' | 'jobs' | 'cli' | string): Logger {
  return root.child({ subsystem: name });
}
