import type { Config } from './config/config.js';
import { buildApp } from './app.js';
import { createContext } from './context.js';
import { ConfigError } from './config/config-error.js';
import { checkInitDir } from './modules/controls/init-hooks.js';
import { ownUrl } from './modules/controls/populate.js';
import { type Inject, readSeedFile, seedRequests } from './modules/controls/seed.js';
import { listenS3 } from './modules/object-storage/s3/s3.listener.js';

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
  // A bad seed file or init folder stops the start before anything is written.
  if (config.seedFile) await readSeedFile(config.seedFile);
  const badInit = config.initDir ? checkInitDir(config.initDir) : undefined;
  if (badInit) throw new ConfigError('STRATUS_INIT_DIR', badInit);
  const ctx = await createContext(config);
  const first = await ctx.state.initialise();
  const operatorToken = await ctx.areas.controls.operator.ensure();
  const app = await buildApp(ctx);
  const inject = (r: Parameters<Inject>[0]) => app.inject(r);
  if (first?.seeded) {
    const n = await seedRequests(inject, first.seeded.file, first.seeded.tokens);
    out(`Seeded ${first.seeded.accounts.length} account(s) and ${n} request(s) from STRATUS_SEED.`);
    for (const a of first.seeded.accounts.filter((x) => x.token)) {
      out(`  seeded user "${a.username}" token: ${a.token}`);
    }
  }
  ctx.areas.controls.controls.startSync();
  await app.listen({ host: config.host, port: config.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const hostPart = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${hostPart}:${port}`;
  const s3 =
    config.s3Port !== undefined
      ? await listenS3(app.server, config.host, config.s3Port)
      : undefined;
  if (config.inProcessWorker) {
    // Listed in job_workers before it runs a job: /_stratus/health never shows work done by a
    // worker it does not list.
    await ctx.heartbeat.start('serve');
    ctx.runner.start();
    // The QEMU driver's host agent (power-offs, volume hot-plug, statistics) runs beside the jobs.
    ctx.areas.compute.machines.agent.start();
  }
  const dns = config.dns.port === undefined ? undefined : await ctx.areas.domains.dns.listen();

  out(`Stratus is listening on ${url}/v4 (database: ${ctx.db.dialect}, timing: ${config.timing})`);
  if (dns) out(`DNS server: ${dnsAddress(dns)} (UDP and TCP)`);
  out(`API reference: ${url}/_stratus/docs   OpenAPI: ${url}/v4/openapi.json`);
  if (s3) out(`S3 data plane at the root of http://${hostPart}:${s3.port} (STRATUS_S3_PORT)`);
  out(`Web console: ${url}/`);
  if (first) {
    // Shown once, on stdout only: it is never logged and never shown again.
    out(`Created the default account (user "admin"). Its personal access token (scope *):`);
    out(`  ${first.adminToken ?? '(the value of STRATUS_ADMIN_TOKEN)'}`);
    out(`Try: curl -H "Authorization: Bearer <token>" ${url}/v4/profile`);
  } else {
    out(
      'The database already has accounts: the admin token was shown at its first start. ' +
        'A new one: stratus admin token --username admin (same DATABASE_URL).',
    );
  }
  if (operatorToken) {
    out('Operator token of the emulator controls (/_stratus/*), shown once:');
    out(`  ${operatorToken}`);
  }
  if (first && config.initDir) {
    const run = await ctx.areas.controls.init.run('first-start', {
      inject,
      baseUrl: ownUrl(app.server),
    });
    const failed = run?.files.find((f) => f.status === 'failed');
    out(
      failed
        ? `Init hooks (STRATUS_INIT_DIR): ${failed.file} failed: ${failed.error ?? ''} (see /_stratus/health)`
        : `Init hooks (STRATUS_INIT_DIR): ${run?.files.length ?? 0} file(s) applied.`,
    );
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // Stop accepting and finish requests under way, then the job step under way, then the DB.
      // Keep-alive connections go idle once their response is sent: close them then, or
      // app.close() would wait for the keep-alive timeout (72 s).
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await s3?.close();
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      await dns?.close();
      ctx.areas.controls.controls.stopSync();
      await ctx.areas.compute.machines.agent.stop();
      await ctx.runner.stop();
      await ctx.heartbeat.stop();
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
  // Listed before it runs a job (see serve).
  await ctx.heartbeat.start('worker');
  ctx.runner.start();
  ctx.areas.compute.machines.agent.start();
  out(`Stratus worker ${ctx.runner.workerId} is running jobs (database: ${ctx.db.dialect})`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      ctx.areas.controls.controls.stopSync();
      await ctx.areas.compute.machines.agent.stop();
      await ctx.runner.stop();
      await ctx.heartbeat.stop();
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
