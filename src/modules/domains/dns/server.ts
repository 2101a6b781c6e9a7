// Node's UDP sockets are loaded when the DNS server listens (process.getBuiltinModule), not by a
// process that never does (a server's HTTP listen loads them anyway, through Node's cluster module).
import net from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Logger } from 'pino';
import { ipIn } from '../domains.rules.js';
import type { ZoneRecord } from '../zone.js';
import type { ZoneSource } from './zones.js';

const OPCODE_QUERY = 0;
const OPCODE_NOTIFY = 4;
const RCODES = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
} as const;
type RcodeName = keyof typeof RCODES;

/** Largest UDP answer without EDNS (RFC 1035), and the one offered with it (DNS flag day 2020). */
const UDP_PLAIN = 512;
const UDP_EDNS = 1232;
/** Records per message of a zone transfer (each message stays well under 64 KiB). */
const AXFR_CHUNK = 200;
const TCP_IDLE_MS = 30_000;

export interface DnsServerDeps {
  zones: ZoneSource;
  log: Logger;
  /** A NOTIFY for a slave zone from one of its masters: check the masters now. */
  onNotify?(zoneId: number): Promise<void>;
}

export interface DnsListener {
  host: string;
  port: number;
  close(): Promise<void>;
}

type Transport = 'udp' | 'tcp';

const toAnswer = (r: ZoneRecord): dnsPacket.Answer =>
  ({ name: r.name, type: r.type, ttl: r.ttl, class: 'IN', data: r.data }) as dnsPacket.Answer;

/**
 * The authoritative DNS server: UDP and TCP on one port, answering from the database for every
 * active zone of every account (ZoneSource). Packets are encoded and decoded by dns-packet.
 */
export class DnsServer {
  constructor(private readonly d: DnsServerDeps) {}

  /** Listens on UDP and TCP at host:port (port 0: a free port, the same for both). */
  async listen(host: string, port: number): Promise<DnsListener> {
    for (let attempt = 0; ; attempt++) {
      const udp = process
        .getBuiltinModule('node:dgram')
        .createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4' });
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, host, () => {
          udp.off('error', reject);
          resolve();
        });
      });
      const bound = udp.address().port;
      const tcp = net.createServer((socket) => this.serveTcp(socket));
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(bound, host, () => {
            tcp.off('error', reject);
            resolve();
          });
        });
      } catch (err) {
        udp.close();
        // A free UDP port whose TCP twin is taken: draw again (only when any port will do).
        if (port === 0 && attempt < 5) continue;
        throw err;
      }
      udp.on('message', (msg, rinfo) => {
        void this.respond(msg, 'udp', rinfo.address).then(
          (out) => {
            for (const b of out) udp.send(b, rinfo.port, rinfo.address);
          },
          (err: unknown) => this.d.log.error({ err }, 'dns: udp answer failed'),
        );
      });
      udp.on('error', (err) => this.d.log.error({ err }, 'dns: udp socket error'));
      const sockets = new Set<net.Socket>();
      tcp.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      return {
        host,
        port: bound,
        close: async () => {
          for (const s of sockets) s.destroy();
          await Promise.all([
            new Promise<void>((r) => udp.close(() => r())),
            new Promise<void>((r) => tcp.close(() => r())),
          ]);
        },
      };
    }
  }

  private serveTcp(socket: net.Socket): void {
    let buf = Buffer.alloc(0);
    let chain = Promise.resolve();
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < 2 + len) break;
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        // Answers go out in the order the questions came.
        chain = chain.then(async () => {
          try {
            const out = await this.respond(msg, 'tcp', socket.remoteAddress ?? '');
            for (const b of out) {
              const framed = Buffer.alloc(2 + b.length);
              framed.writeUInt16BE(b.length, 0);
              b.copy(framed, 2);
              if (!socket.destroyed) socket.write(framed);
            }
          } catch (err) {
            this.d.log.error({ err }, 'dns: tcp answer failed');
            socket.destroy();
          }
        });
      }
    });
  }

  /** The answer messages (several for a zone transfer) to one message; none to drop it. */
  async respond(msg: Buffer, transport: Transport, remote: string): Promise<Buffer[]> {
    if (msg.length < 12) return [];
    const id = msg.readUInt16BE(0);
    const flags = msg.readUInt16BE(2);
    if (flags & 0x8000) return []; // a response: never answer one
    const opcode = (flags >> 11) & 0xf;
    const rd = flags & dnsPacket.RECURSION_DESIRED;
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return [this.bare(id, opcode, rd, 'FORMERR')];
    }
    const questions = query.questions ?? [];
    const q = questions[0];
    if (opcode !== OPCODE_QUERY && opcode !== OPCODE_NOTIFY)
      return [this.bare(id, opcode, rd, 'NOTIMP', questions)];
    if (questions.length !== 1 || !q) return [this.bare(id, opcode, rd, 'FORMERR', questions)];
    const opt = (query.additionals ?? []).find((a) => a.type === 'OPT') as
      | dnsPacket.OptAnswer
      | undefined;
    const limit =
      transport === 'tcp'
        ? 65535
        : opt
          ? Math.min(UDP_EDNS, Math.max(UDP_PLAIN, opt.udpPayloadSize))
          : UDP_PLAIN;
    const klass = q.class ?? 'IN';
    if (klass !== 'IN' && klass !== 'ANY') return [this.bare(id, opcode, rd, 'REFUSED', questions)];

    const served = await this.d.zones.find(q.name);
    if (opcode === OPCODE_NOTIFY) return [await this.notify(id, rd, q, served, remote)];
    if (!served) return [this.bare(id, opcode, rd, 'REFUSED', questions, opt)];
    if (!served.zone) return [this.bare(id, opcode, rd, 'SERVFAIL', questions, opt)];

    if (q.type === 'AXFR' || q.type === 'IXFR') {
      const apex = served.zone.apex === q.name.replace(/\.$/, '').toLowerCase();
      // Zone transfers: over TCP, of the zone itself, to the zone's axfr_ips only.
      if (transport !== 'tcp' || !apex || !ipIn(remote, served.axfrIps)) {
        this.d.log.info({ zone: served.key, remote, transport }, 'dns: zone transfer refused');
        return [this.bare(id, opcode, rd, 'REFUSED', questions, opt)];
      }
      return this.transfer(id, rd, q, served.zone.transfer());
    }

    const a = served.zone.answer(q.name, q.type);
    const packet: dnsPacket.Packet = {
      id,
      type: 'response',
      flags: this.flags(opcode, rd, a.rcode, a.authoritative),
      questions: [q],
      answers: a.answers.map(toAnswer),
      authorities: a.authorities.map(toAnswer),
      additionals: [...a.additionals.map(toAnswer), ...(opt ? [this.opt()] : [])],
    };
    let out = dnsPacket.encode(packet);
    if (out.length > limit) {
      // Too large for UDP: the TC bit tells the client to ask again over TCP.
      out = dnsPacket.encode({
        ...packet,
        flags: (packet.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
        answers: [],
        authorities: [],
        additionals: opt ? [this.opt()] : [],
      });
    }
    return [out];
  }

  private async notify(
    id: number,
    rd: number,
    q: dnsPacket.Question,
    served: Awaited<ReturnType<ZoneSource['find']>>,
    remote: string,
  ): Promise<Buffer> {
    // RFC 1996: a NOTIFY for a slave zone from one of its masters starts a check at once.
    if (served?.type !== 'slave' || !ipIn(remote, served.masterIps))
      return this.bare(id, OPCODE_NOTIFY, rd, 'REFUSED', [q]);
    await this.d.onNotify?.(served.id);
    return dnsPacket.encode({
      id,
      type: 'response',
      flags: this.flags(OPCODE_NOTIFY, rd, 'NOERROR', true),
      questions: [q],
    });
  }

  private transfer(id: number, rd: number, q: dnsPacket.Question, records: ZoneRecord[]) {
    const out: Buffer[] = [];
    for (let i = 0; i < records.length; i += AXFR_CHUNK) {
      out.push(
        dnsPacket.encode({
          id,
          type: 'response',
          flags: this.flags(OPCODE_QUERY, rd, 'NOERROR', true),
          questions: i === 0 ? [q] : [],
          answers: records.slice(i, i + AXFR_CHUNK).map(toAnswer),
        }),
      );
    }
    return out;
  }

  private flags(opcode: number, rd: number, rcode: RcodeName, aa: boolean): number {
    return (opcode << 11) | (aa ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | rd | RCODES[rcode];
  }

  private opt(): dnsPacket.Answer {
    return {
      name: '.',
      type: 'OPT',
      udpPayloadSize: UDP_EDNS,
      extendedRcode: 0,
      ednsVersion: 0,
      flags: 0,
      flag_do: false,
      options: [],
    } as unknown as dnsPacket.Answer;
  }

  private bare(
    id: number,
    opcode: number,
    rd: number,
    rcode: RcodeName,
    questions: dnsPacket.Question[] = [],
    opt?: dnsPacket.OptAnswer,
  ): Buffer {
    return dnsPacket.encode({
      id,
      type: 'response',
      flags: this.flags(opcode, rd, rcode, false),
      questions,
      additionals: opt ? [this.opt()] : [],
    });
  }
}
