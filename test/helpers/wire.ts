import { connect } from 'node:net';

/** Headers that differ between two answers to the same request. */
export const VARYING_HEADERS = new Set([
  'date',
  'x-request-id',
  'x-ratelimit-reset',
  'content-length',
]);

/**
 * The head of the answer to `request` (raw HTTP/1.1 text) on a real socket to 127.0.0.1:`port`,
 * as sent: the status line and the header lines, up to the blank line, in latin1.
 */
export function responseHead(port: number, request: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (c) => {
      got += c.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(got.slice(0, end));
      }
    });
    socket.on('error', reject);
    socket.write(request);
  });
}
