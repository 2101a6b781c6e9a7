import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import pino, { type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory } from './request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const root = pino({ level, redact: { paths: ['secret'], censor: '[redacted]' } }, stream);
  let children = 0;
  const child = root.child.bind(root);
  root.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof root.child;
  return { root, lines, children: () => children };
}

const lazy = (root: Logger, bindings: Record<string, unknown>, opts: { level?: string }) =>
  lazyChildLoggerFactory(root as unknown as FastifyBaseLogger, bindings, opts) as unknown as Logger;

describe('request logger', () => {
  it('lazyChildLoggerFactory: no child logger is made for a request that writes no line', () => {
    const c = capture('warn');
    const log = lazy(c.root, { reqId: 'r1' }, {});
    log.info('not written at warn');
    log.debug('nor this');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.level).toBe('warn');
    expect(c.children()).toBe(0);
    expect(c.lines).toEqual([]);
  });

  it('lazyChildLoggerFactory: a line is the child’s: its bindings, redaction and level', async () => {
    const c = capture('info');
    const log = lazy(c.root, { reqId: 'r2' }, {});
    log.info({ secret: 'hunter2', n: 1 }, 'hello');
    log.warn('second');
    log.debug('below the level');
    await new Promise((r) => setImmediate(r));
    expect(c.children()).toBe(1);
    expect(c.lines.map((l) => [l.reqId, l.msg, l.secret ?? null])).toEqual([
      ['r2', 'hello', '[redacted]'],
      ['r2', 'second', null],
    ]);
  });

  it('lazyChildLoggerFactory: a route’s own level is the child’s', async () => {
    const c = capture('info');
    const log = lazy(c.root, { reqId: 'r3' }, { level: 'debug' });
    expect(log.isLevelEnabled('debug')).toBe(true);
    log.debug('written at the route’s level');
    await new Promise((r) => setImmediate(r));
    expect(c.lines.map((l) => l.msg)).toEqual(['written at the route’s level']);
  });
});
