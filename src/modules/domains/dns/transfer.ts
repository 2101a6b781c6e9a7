// Node's UDP sockets and DNS lookups are loaded at a transfer's first use
// (process.getBuiltinModule): a process that does not listen never loads them (a server's listen
// loads the sockets anyway, through Node's cluster module).
import net from 'node:net';
import * as dnsPacket from 'dns-packet';
import ipaddr from 'ipaddr.js';
import type { ZoneRecord, ZoneRecordType } from '../zone.js';

const TIMEOUT_MS = 5000;
/** The most records a transfer may bring (a domain holds at most 12,000 records). */
const MAX_TRANSFER_RECORDS = 20_000;
const MAX_TRANSFER_BYTES = 32 * 1024 * 1024;

/** Where Stratus may ask for SOA serials and zone transfers (imports and slave zones). */
export class TransferPolicy {
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] | undefined;

  /**
   * `port`: the port of every master and remote name server (53 unless the operator says);
   * `networks`: CIDRs they must be in (undefined: any address).
   */
  constructor(
    readonly port: number,
    networks: readonly string[] | undefined,
  ) {
    this.ranges = networks?.map((c) => ipaddr.parseCIDR(c));
  }

  allowed(address: string): boolean {
    if (!this.ranges) return true;
    let a: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      a = ipaddr.process(address);
    } catch {
      return false;
    }
    return this.ranges.some(([net, bits]) => a.kind() === net.kind() && a.match([net, bits]));
  }
}

export class TransferError extends Error {
  override name = 'TransferError';
}

const SUPPORTED = new Set<string>([
  'SOA',
  'A',
  'AAAA',
  'NS',
  'MX',
  'CNAME',
  'TXT',
  'SRV',
  'PTR',
  'CAA',
]);

/** A decoded answer as a zone record; undefined for types Stratus does not serve. */
export function fromWire(a: dnsPacket.Answer): ZoneRecord | undefined {
  if (!SUPPORTED.has(a.type) || !('data' in a)) return undefined;
  const base = { name: a.name.replace(/\.$/, ''), type: a.type as ZoneRecordType, ttl: a.ttl ?? 0 };
  const d = a.data as unknown;
  switch (a.type) {
    case 'TXT': {
      const parts = Array.isArray(d) ? d : [d];
      return {
        ...base,
        data: parts.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : String(p))),
      };
    }
    case 'CAA': {
      const c = d as dnsPacket.CaaData;
      return { ...base, data: { flags: c.flags ?? 0, tag: c.tag, value: c.value } };
    }
    case 'SOA': {
      const s = d as dnsPacket.SoaData;
      return {
        ...base,
        data: {
          mname: s.mname,
          rname: s.rname,
          serial: s.serial ?? 0,
          refresh: s.refresh ?? 0,
          retry: s.retry ?? 0,
          expire: s.expire ?? 0,
          minimum: s.minimum ?? 0,
        },
      };
    }
    case 'MX': {
      const m = d as dnsPacket.MxData;
      return { ...base, data: { preference: m.preference ?? 0, exchange: m.exchange } };
    }
    case 'SRV': {
      const s = d as dnsPacket.SrvData;
      return {
        ...base,
        data: { priority: s.priority ?? 0, weight: s.weight ?? 0, port: s.port, target: s.target },
      };
    }
    default:
      return { ...base, data: String(d) };
  }
}

/** The addresses of a name server given as an IP or a host name (the system's resolver). */
export async function addressesOf(server: string): Promise<string[]> {
  if (net.isIP(server)) return [server];
  try {
    const found = await process.getBuiltinModule('node:dns/promises').lookup(server, { all: true });
    return found.map((f) => f.address);
  } catch {
    throw new TransferError(`${server} could not be resolved`);
  }
}

/** The zone's SOA serial as `ip` answers it (UDP), or a TransferError. */
export async function soaSerial(
  policy: TransferPolicy,
  ip: string,
  zone: string,
  timeoutMs = TIMEOUT_MS,
): Promise<number> {
  if (!policy.allowed(ip)) throw new TransferError(`${ip} is not an address transfers may use`);
  const sock = process
    .getBuiltinModule('node:dgram')
    .createSocket(net.isIPv6(ip) ? 'udp6' : 'udp4');
  const id = Math.floor(Math.random() * 65536);
  try {
    const reply = await new Promise<dnsPacket.DecodedPacket>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new TransferError(`${ip} did not answer the SOA query`)),
        timeoutMs,
      );
      sock.on('error', (err) => {
        clearTimeout(timer);
        reject(new TransferError(`${ip}: ${err.message}`));
      });
      sock.on('message', (msg) => {
        try {
          const p = dnsPacket.decode(msg);
          if (p.id !== id) return;
          clearTimeout(timer);
          resolve(p);
        } catch {
          // not an answer to us: wait for the real one
        }
      });
      sock.send(
        dnsPacket.encode({ id, type: 'query', questions: [{ name: zone, type: 'SOA' }] }),
        policy.port,
        ip,
      );
    });
    const rcode = reply.flags === undefined ? 0 : reply.flags & 0xf;
    const soa = (reply.answers ?? []).find((a) => a.type === 'SOA');
    if (rcode !== 0 || !soa || !reply.flag_aa)
      throw new TransferError(`${ip} is not authoritative for ${zone}`);
    return (soa.data as dnsPacket.SoaData).serial ?? 0;
  } finally {
    sock.close();
  }
}

/**
 * The whole zone from `ip` over TCP (AXFR, RFC 5936): the records of the supported types, SOA
 * first (the closing SOA is left out). A refusal, a timeout or a malformed transfer is a
 * TransferError.
 */
export async function axfr(
  policy: TransferPolicy,
  ip: string,
  zone: string,
  timeoutMs = TIMEOUT_MS,
): Promise<ZoneRecord[]> {
  if (!policy.allowed(ip)) throw new TransferError(`${ip} is not an address transfers may use`);
  const id = Math.floor(Math.random() * 65536);
  return new Promise<ZoneRecord[]>((resolve, reject) => {
    const records: ZoneRecord[] = [];
    let soas = 0;
    let buf = Buffer.alloc(0);
    let total = 0;
    let done = false;
    const socket = net.connect({ host: ip, port: policy.port });
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      socket.destroy();
      if (err) reject(err);
      else resolve(records);
    };
    socket.setTimeout(timeoutMs, () =>
      finish(new TransferError(`${ip} timed out during the transfer`)),
    );
    socket.on('error', (err) => finish(new TransferError(`${ip}: ${err.message}`)));
    socket.on('close', () => finish(new TransferError(`${ip} closed the transfer before its end`)));
    socket.on('connect', () => {
      socket.write(
        dnsPacket.streamEncode({ id, type: 'query', questions: [{ name: zone, type: 'AXFR' }] }),
      );
    });
    socket.on('data', (chunk) => {
      total += chunk.length;
      if (total > MAX_TRANSFER_BYTES)
        return finish(new TransferError(`${ip}: the zone is too large`));
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < 2 + len) break;
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        let p: dnsPacket.DecodedPacket;
        try {
          p = dnsPacket.decode(msg);
        } catch {
          return finish(new TransferError(`${ip} sent a malformed message`));
        }
        const rcode = (p.flags ?? 0) & 0xf;
        if (rcode !== 0) return finish(new TransferError(`${ip} refused the transfer of ${zone}`));
        for (const a of p.answers ?? []) {
          if (a.type === 'SOA') {
            soas++;
            if (soas === 2) return finish();
          } else if (soas === 0) {
            return finish(new TransferError(`${ip}: the transfer did not begin with the SOA`));
          }
          const r = fromWire(a);
          if (r && !(a.type === 'SOA' && soas > 1)) records.push(r);
          if (records.length > MAX_TRANSFER_RECORDS)
            return finish(new TransferError(`${ip}: the zone has too many records`));
        }
      }
    });
  });
}
