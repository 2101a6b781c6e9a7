import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * The object-storage baseline: a bare node:http server that streams a PUT body to a temporary
 * file, flushes and renames it into place, and streams a GET from disk — the same disk work as
 * Stratus's data plane, without signatures, database or S3 protocol. Prints `listening <port>`.
 */
const dir = process.env.RAW_DIR ?? '/tmp/raw-blobs';
let n = 0;
const server = createServer((req, res) => {
  const name = encodeURIComponent(req.url ?? '/');
  const file = path.join(dir, name);
  void (async () => {
    try {
      if (req.method === 'PUT') {
        const tmp = path.join(dir, 'tmp', `${process.pid}-${n++}`);
        await pipeline(req, createWriteStream(tmp));
        const fh = await open(tmp, 'r');
        await fh.sync();
        await fh.close();
        await rename(tmp, file);
        res.writeHead(200, { 'content-length': 0 });
        res.end();
      } else {
        const s = await stat(file);
        res.writeHead(200, {
          'content-length': s.size,
          'content-type': 'application/octet-stream',
        });
        await pipeline(createReadStream(file), res);
      }
    } catch {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  })();
});
server.keepAliveTimeout = 72_000;
await mkdir(path.join(dir, 'tmp'), { recursive: true });
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(`listening ${port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
