import dgram from 'node:dgram';
import { parseIpv6 } from '../../../src/lib/ip.js';

/**
 * A small authoritative DNS server on 127.0.0.1 for tests: answers A and AAAA questions from a
 * map of names to addresses, NXDOMAIN for other names.
 */
export async function startDnsServer(
  records: Record<string, string[]>,
): Promise<{ address: string; close: () => Promise<void> }> {
  const sock = dgram.createSocket('udp4');
  sock.on('message', (msg, rinfo) => {
    let off = 12;
    const labels: string[] = [];
    while (off < msg.length && msg[off] !== 0) {
      const len = msg[off] as number;
      labels.push(msg.subarray(off + 1, off + 1 + len).toString('ascii'));
      off += len + 1;
    }
    off += 1;
    const qtype = msg.readUInt16BE(off);
    const question = msg.subarray(12, off + 4);
    const name = labels.join('.').toLowerCase();
    const want = (records[name] ?? []).filter((a) =>
      qtype === 1 ? !a.includes(':') : a.includes(':'),
    );
    const answers = want.map((a) => {
      const rdata =
        qtype === 1
          ? Buffer.from(a.split('.').map(Number))
          : Buffer.from((parseIpv6(a) ?? []).flatMap((g) => [g >> 8, g & 255]));
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(qtype, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    const head = Buffer.alloc(12);
    msg.copy(head, 0, 0, 2);
    head.writeUInt16BE(name in records ? 0x8580 : 0x8583, 2);
    head.writeUInt16BE(1, 4);
    head.writeUInt16BE(answers.length, 6);
    sock.send(Buffer.concat([head, question, ...answers]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${sock.address().port}`,
    close: () => new Promise<void>((resolve) => sock.close(() => resolve())),
  };
}
