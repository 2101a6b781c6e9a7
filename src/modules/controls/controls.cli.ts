import { createReadStream, readFileSync, writeFileSync, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import { buildApp } from '../../app.js';
import type { Config } from '../../config/config.js';
import { type CliIo, stdio } from '../../lib/cli-io.js';
import { type AppContext, createContext } from '../../context.js';
import { ApiError } from '../../errors/api-error.js';
import { FaultsBody } from './faults.js';
import { ownUrl, populateAfterReset } from './populate.js';
import type { Inject } from './seed.js';
import { importSnapshotStream, snapshotLines } from './snapshot-stream.js';

const OPTIONS = {
  euuid: { type: 'string' },
  file: { type: 'string' },
  profile: { type: 'string' },
  'no-bytes': { type: 'boolean' },
} as const;

class CliError extends Error {}

type InjectRequest = Parameters<Inject>[0];

function readJson(file: string | undefined): unknown {
  if (!file) throw new CliError('--file is required (a path, or - for stdin)');
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file}: not JSON (${(err as Error).message})`);
  }
}

/**
 * `stratus state reset|export|import`, `stratus faults get|set|clear`, `stratus timing
 * get|set`, `stratus operator-token`: the emulator controls, straight on the database (like the
 * admin commands; running servers follow within a fraction of a second).
 */
export async function controlsCommand(
  config: Config,
  command: string,
  args: string[],
  io: CliIo = stdio,
): Promise<number> {
  let ctx: AppContext | undefined;
  try {
    const { values, positionals } = parseArgs({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
    });
    const [sub] = positionals;
    ctx = await createContext(config);
    const json = (v: unknown) => io.out(JSON.stringify(v, null, 2));
    switch (`${command} ${sub ?? ''}`.trim()) {
      case 'state reset': {
        const { seed, ...result } = await ctx.state.reset(values.euuid);
        if (result.scope === 'all' && (seed || config.initDir)) {
          const app = await buildApp(ctx);
          try {
            // Init scripts reach the API over HTTP: a server of this process, for their time.
            if (config.initDir) await app.listen({ host: '127.0.0.1', port: 0 });
            const target = {
              inject: (r: InjectRequest) => app.inject(r),
              baseUrl: ownUrl(app.server),
            };
            const { init } = await populateAfterReset(ctx.areas.controls.init, target, seed);
            json(init ? { ...result, init } : result);
          } finally {
            await app.close();
          }
          return 0;
        }
        json(result);
        return 0;
      }
      case 'state export': {
        // NDJSON with the object and image bytes; --no-bytes: the rows as one JSON document.
        const toFile = values.file && values.file !== '-' ? values.file : undefined;
        if (values['no-bytes']) {
          const text = JSON.stringify({ ...(await ctx.state.exportSnapshot()), blobs: 'omitted' });
          if (toFile) writeFileSync(toFile, text);
          else io.out(text);
        } else if (toFile) {
          await pipeline(Readable.from(snapshotLines(ctx.state)), createWriteStream(toFile));
        } else {
          for await (const line of snapshotLines(ctx.state)) io.out(line.slice(0, -1));
        }
        return 0;
      }
      case 'state import': {
        if (!values.file) throw new CliError('--file is required (a path, or - for stdin)');
        const file = values.file;
        const body = file === '-' ? process.stdin : createReadStream(file);
        try {
          json(await importSnapshotStream(ctx.state, body));
        } catch (err) {
          // A JSON document spread over several lines (pretty-printed): read it whole.
          if (file === '-' || !(err instanceof ApiError) || !/JSON object/.test(err.message))
            throw err;
          json(await ctx.state.importSnapshot(readJson(file)));
        }
        return 0;
      }
      case 'faults get':
        json(await ctx.areas.controls.controls.faultsView());
        return 0;
      case 'faults set': {
        const body = readJson(values.file);
        const first = Value.Errors(FaultsBody, body).First();
        if (first) throw new CliError(`${values.file}${first.path || '/'}: ${first.message}`);
        json(await ctx.areas.controls.controls.setFaults(body as never));
        return 0;
      }
      case 'faults clear':
        json(await ctx.areas.controls.controls.setFaults({ rules: [] }));
        return 0;
      case 'timing get':
        json(ctx.areas.controls.controls.timingView());
        return 0;
      case 'timing set': {
        const p = values.profile;
        if (p !== 'instant' && p !== 'fast' && p !== 'realistic') {
          throw new CliError('--profile must be instant, fast or realistic');
        }
        json(await ctx.areas.controls.controls.setTiming({ profile: p }));
        return 0;
      }
      case 'operator-token':
        io.out(JSON.stringify({ token: await ctx.areas.controls.operator.rotate() }));
        return 0;
      default:
        throw new CliError(`unknown command: ${command} ${sub ?? ''}`.trim());
    }
  } catch (err) {
    if (err instanceof ApiError) io.err(JSON.stringify({ errors: err.errors }));
    else io.err(err instanceof Error ? err.message : String(err));
    return err instanceof CliError || err instanceof ApiError ? 2 : 1;
  } finally {
    await ctx?.db.close();
  }
}
