import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AwsChunkedDecoder } from './s3.chunked.js';
import { signingKey } from './sigv4.js';

// The worked example of AWS's "Signature Calculations for the Authorization Header: Transferring
// Payload in Multiple Chunks" (66560 bytes of 'a' in chunks of 65536 and 1024).
const signing = {
  key: signingKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524', 'us-east-1', 's3'),
  amzDate: '20130524T000000Z',
  scope: '20130524/us-east-1/s3/aws4_request',
  seed: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
};
const SIGS = [
  'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
  '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
  'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
];

function framed(sigs: string[]): Buffer {
  const a = (n: number) => Buffer.alloc(n, 'a');
  return Buffer.concat([
    Buffer.from(`10000;chunk-signature=${sigs[0]}\r\n`),
    a(65536),
    Buffer.from(`\r\n400;chunk-signature=${sigs[1]}\r\n`),
    a(1024),
    Buffer.from(`\r\n0;chunk-signature=${sigs[2]}\r\n\r\n`),
  ]);
}

async function decode(body: Buffer, pieces = 1000): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < body.length; i += pieces) parts.push(body.subarray(i, i + pieces));
  const out: Buffer[] = [];
  for await (const c of Readable.from(parts).pipe(new AwsChunkedDecoder(signing)))
    out.push(c as Buffer);
  return Buffer.concat(out);
}

describe('AwsChunkedDecoder', () => {
  it("decode: verifies each chunk signature of AWS's example and yields the data", async () => {
    const data = await decode(framed(SIGS));
    expect(data.length).toBe(66560);
    expect(data.every((b) => b === 0x61)).toBe(true);
  });

  it('decode: a tampered chunk signature fails with SignatureDoesNotMatch', async () => {
    const bad = [SIGS[0] as string, `${'0'.repeat(63)}1`, SIGS[2] as string];
    await expect(decode(framed(bad))).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('decode: a body cut short fails', async () => {
    const body = framed(SIGS);
    await expect(decode(body.subarray(0, 40_000))).rejects.toMatchObject({
      code: 'InvalidRequest',
    });
  });
});
