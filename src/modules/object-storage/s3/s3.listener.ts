import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * Where S3's own listener (STRATUS_S3_PORT) hands its requests to the API listener's routes:
 * each request keeps its socket and body, its URL is put under this prefix, and the URL the
 * client sent travels with it (signatures cover it). The API listener answers this prefix only
 * for requests that came this way.
 */
export const S3_ROOT_PREFIX = '/_stratus/s3-root';

const ORIGINAL = Symbol('s3OriginalUrl');

/** The URL a client sent to S3's own listener, or undefined for any other request. */
export function originalUrlOf(req: IncomingMessage): string | undefined {
  return (req as { [ORIGINAL]?: string })[ORIGINAL];
}

/**
 * S3 at the root of its own listener: `/<bucket>/<key>` (or `<bucket>.<suffix>` virtual hosts),
 * for clients that cannot keep a path prefix (s3cmd, rclone and MinIO clients by default, the
 * s3-tests suite). Every request goes through the API listener's request pipeline (its request
 * ids, logs, metrics and fault rules), whose data-plane route serves it.
 */
export async function listenS3(
  api: Server,
  host: string,
  port: number,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  const server = createServer();
  const forward = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    (req as { [ORIGINAL]?: string })[ORIGINAL] = req.url ?? '/';
    req.url = `${S3_ROOT_PREFIX}${req.url ?? '/'}`;
    if (expectsContinue) (req as { s3ExpectsContinue?: boolean }).s3ExpectsContinue = true;
    api.emit('request', req, res);
  };
  server.on('request', (req, res) => forward(req, res, false));
  server.on('checkContinue', (req, res) => forward(req, res, true));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : port;
  return {
    server,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeIdleConnections();
        server.close(() => resolve());
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
