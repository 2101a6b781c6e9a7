import dgram from 'node:dgram';
import net from 'node:net';
import { Resolver } from 'node:dns/promises';
import * as dnsPacket from 'dns-packet';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

/** Creates a master domain (200 expected). */
export async function domain(t: TestApp, name: string, extra: Record<string, unknown> = {}) {
  const r = await t.post('/v4/domains', {
    domain: name,
    type: 'master',
    soa_email: `admin@${name}`,
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: number; domain: string; [k: string]: unknown };
}

/** Creates a record on a domain (200 expected). */
export async function record(t: TestApp, domainId: number, body: Record<string, unknown>) {
  const r = await t.post(`/v4/domains/${domainId}/records`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: number; name: string; target: string; [k: string]: unknown };
}

/** The fields named by a 400's errors. */
export const fields = (r: { body: { errors?: { field?: string }[] } }) =>
  (r.body.errors ?? []).map((e) => e.field);

/** node's resolver (c-ares) asking only the server at 127.0.0.1:port. */
export function resolver(port: number): Resolver {
  const r = new Resolver({ timeout: 2000, tries: 1 });
  r.setServers([`127.0.0.1:${port}`]);
  return r;
}

/** The error code a resolver call fails with (`ENOTFOUND` for NXDOMAIN, `ENODATA` for NODATA). */
export async function failure(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

/** One raw question over UDP: the whole decoded answer (flags, sections). */
export async function ask(
  port: number,
  name: string,
  type: dnsPacket.RecordType,
  opcode = 0,
): Promise<dnsPacket.DecodedPacket & { rcode: string }> {
  const sock = dgram.createSocket('udp4');
  const id = Math.floor(Math.random() * 65535);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), 3000);
      sock.on('message', (msg) => {
        clearTimeout(timer);
        resolve(dnsPacket.decode(msg) as dnsPacket.DecodedPacket & { rcode: string });
      });
      sock.send(
        dnsPacket.encode({ id, type: 'query', flags: opcode << 11, questions: [{ name, type }] }),
        port,
        '127.0.0.1',
      );
    });
  } finally {
    sock.close();
  }
}

/** A zone transfer over TCP: every answer of every message, and the first message's rcode. */
export async function transfer(
  port: number,
  zone: string,
): Promise<{ rcode: string; answers: dnsPacket.Answer[] }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let buf = Buffer.alloc(0);
    const answers: dnsPacket.Answer[] = [];
    let soas = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('transfer timed out'));
    }, 5000);
    socket.on('connect', () =>
      socket.write(
        dnsPacket.streamEncode({ id: 7, type: 'query', questions: [{ name: zone, type: 'AXFR' }] }),
      ),
    );
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const p = dnsPacket.decode(buf.subarray(2, 2 + len)) as dnsPacket.DecodedPacket & {
          rcode: string;
        };
        buf = buf.subarray(2 + len);
        if (p.rcode !== 'NOERROR') {
          clearTimeout(timer);
          socket.destroy();
          return resolve({ rcode: p.rcode, answers });
        }
        for (const a of p.answers ?? []) {
          answers.push(a);
          if (a.type === 'SOA' && ++soas === 2) {
            clearTimeout(timer);
            socket.destroy();
            return resolve({ rcode: 'NOERROR', answers });
          }
        }
      }
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
