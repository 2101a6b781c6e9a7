import type { Config } from './config/config.js';
import { buildApp } from './app.js';
import { createContext } from './context.js';
import { seedRequests } from './modules/controls/seed.js';

export interface Running {
  url: string;
  close: () => Promise<void>;
}

/**
 * The API process: migrate, seed, create the default account on an empty database, listen, and
 * run jobs in-process unless disabled. Closes gracefully on SIGTERM/SIGINT.
 */
export async function serve(
  config: Config,
  out: (line: string) => void = console.log,
): Promise<Running> {
  const ctx = await createContext(config);
  const first = await ctx.state.initialise();
  const operatorToken = await ctx.areas.controls.operator.ensure();
  const app = await buildApp(ctx);
  if (first?.seeded) {
    const n = await seedRequests((r) => app.inject(r), first.seeded.file, first.seeded.tokens);
    out(`Seeded ${first.seeded.accounts.length} account(s) and ${n} request(s) from STRATUS_SEED.`);
    for (const a of first.seeded.accounts.filter((x) => x.token)) {
      out(`  seeded user "${a.username}" token: ${a.token}`);
    }
  }
  ctx.areas.controls.controls.startSync();
  await app.listen({ host: config.host, port: config.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  if (config.inProcessWorker) ctx.runner.start();
  const dns = config.dns.port === undefined ? undefined : await ctx.areas.domains.dns.listen();

  out(`Stratus is listening on ${url}/v4 (database: ${ctx.db.dialect}, timing: ${config.timing})`);
  if (dns) out(`DNS server: ${dnsAddress(dns)} (UDP and TCP)`);
  out(`API reference: ${url}/_stratus/docs   OpenAPI: ${url}/v4/openapi.json`);
  out(`Web console: ${url}/`);
  if (first) {
    // Shown once, on stdout only: it is never logged and never shown again.
    out(`Created the default account (user "admin"). Its personal access token (scope *):`);
    out(`  ${first.adminToken ?? '(the value of STRATUS_ADMIN_TOKEN)'}`);
    out(`Try: curl -H "Authorization: Bearer <token>" ${url}/v4/profile`);
  }
  if (operatorToken) {
    out('Operator token of the emulator controls (/_stratus/*), shown once:');
    out(`  ${operatorToken}`);
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // Stop accepting and finish requests under way, then the job step under way, then the DB.
      // Keep-alive connections go idle once their response is sent: close them then, or
      // app.close() would wait for the keep-alive timeout (72 s).
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      await dns?.close();
      ctx.areas.controls.controls.stopSync();
      await ctx.runner.stop();
      await ctx.db.close();
    })();
    return closing;
  };
  return { url, close };
}

const dnsAddress = (l: { host: string; port: number }) =>
  `${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`;

/**
 * A process that only answers DNS (`stratus dns`), from the same database as the API: several may
 * run beside the API processes. Needs STRATUS_DNS_PORT.
 */
export async function dnsOnly(
  config: Config,
  out: (line: string) => void = console.log,
): Promise<Running> {
  const ctx = await createContext(config);
  ctx.areas.controls.controls.startSync();
  const dns = await ctx.areas.domains.dns.listen();
  out(
    `Stratus DNS server is answering on ${dnsAddress(dns)} (UDP and TCP, database: ${ctx.db.dialect})`,
  );
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await dns.close();
      ctx.areas.controls.controls.stopSync();
      await ctx.db.close();
    })();
    return closing;
  };
  return { url: '', close };
}

/** A process that only runs jobs, for operators who separate API and workers. */
export async function work(
  config: Config,
  out: (line: string) => void = console.log,
): Promise<Running> {
  const ctx = await createContext(config);
  ctx.areas.controls.controls.startSync();
  ctx.runner.start();
  out(`Stratus worker ${ctx.runner.workerId} is running jobs (database: ${ctx.db.dialect})`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      ctx.areas.controls.controls.stopSync();
      await ctx.runner.stop();
      await ctx.db.close();
    })();
    return closing;
  };
  return { url: '', close };
}

/** Resolves on SIGTERM or SIGINT, after `close` has run. */
export function untilSignal(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      void close().then(resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
