import { createServer } from 'node:http';

/**
 * The baseline: a bare node:http server that answers every request with one fixed JSON body
 * (RAW_BODY, the same size as a type record). Prints `listening <port>` once it listens.
 */
const body = Buffer.from(process.env.RAW_BODY ?? '{}');
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(`listening ${port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
