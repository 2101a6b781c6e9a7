import { createHash, createHmac } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { s3errors } from './s3.errors.js';

const EMPTY_SHA = createHash('sha256').update('').digest('hex');

export interface ChunkSigning {
  key: Buffer;
  amzDate: string;
  scope: string;
  seed: string;
}

/**
 * Decodes an `aws-chunked` body (`<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` … `0…\r\n`
 * then optional trailers) into its data, streaming. With `signing`, each chunk's signature is
 * checked against the previous one (the seed is the request's signature); a bad one fails the
 * stream with SignatureDoesNotMatch. Trailing checksums are read and not checked.
 */
export class AwsChunkedDecoder extends Transform {
  private buf: Buffer = Buffer.alloc(0);
  private remaining = -1;
  private done = false;
  private prev: string;
  private hash = createHash('sha256');
  private expected = '';

  constructor(private readonly signing?: ChunkSigning) {
    super();
    this.prev = signing?.seed ?? '';
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    try {
      this.drain();
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    cb(this.done ? null : s3errors.invalidRequest('Incomplete aws-chunked body'));
  }

  private drain(): void {
    for (;;) {
      if (this.done) return;
      if (this.remaining < 0) {
        const nl = this.buf.indexOf('\r\n');
        if (nl < 0) {
          if (this.buf.length > 4096) throw s3errors.invalidRequest('Bad aws-chunked header');
          return;
        }
        const line = this.buf.subarray(0, nl).toString('latin1');
        this.buf = this.buf.subarray(nl + 2);
        const [sizeHex, ...ext] = line.split(';');
        const size = Number.parseInt(sizeHex ?? '', 16);
        if (!Number.isFinite(size) || size < 0) throw s3errors.invalidRequest('Bad chunk size');
        this.expected = ext.find((e) => e.startsWith('chunk-signature='))?.slice(16) ?? '';
        if (this.signing && this.expected === '') throw s3errors.signatureMismatch();
        this.hash = createHash('sha256');
        this.remaining = size;
        if (size === 0) {
          this.check(EMPTY_SHA);
          this.done = true;
          return;
        }
      }
      if (this.remaining > 0) {
        if (this.buf.length === 0) return;
        const take = Math.min(this.remaining, this.buf.length);
        const data = this.buf.subarray(0, take);
        this.buf = this.buf.subarray(take);
        this.remaining -= take;
        if (this.signing) this.hash.update(data);
        this.push(data);
      }
      if (this.remaining === 0) {
        if (this.buf.length < 2) return;
        this.buf = this.buf.subarray(2);
        this.check(this.signing ? this.hash.digest('hex') : EMPTY_SHA);
        this.remaining = -1;
      }
    }
  }

  private check(dataSha: string): void {
    if (!this.signing) return;
    const toSign = [
      'AWS4-HMAC-SHA256-PAYLOAD',
      this.signing.amzDate,
      this.signing.scope,
      this.prev,
      EMPTY_SHA,
      dataSha,
    ].join('\n');
    const sig = createHmac('sha256', this.signing.key).update(toSign).digest('hex');
    if (sig !== this.expected) throw s3errors.signatureMismatch();
    this.prev = sig;
  }
}
