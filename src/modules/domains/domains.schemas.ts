import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

export const DOMAIN_TYPES = ['master', 'slave'];
export const DOMAIN_STATUSES = ['disabled', 'active'];
export const RECORD_TYPES = ['A', 'AAAA', 'NS', 'MX', 'CNAME', 'TXT', 'SRV', 'PTR', 'CAA'];
export const CAA_TAGS = ['issue', 'issuewild', 'iodef'];

/** Optional request fields accept null: clients send it for every field they leave unset. */
const Opt = <T extends Parameters<typeof Nullable>[0]>(t: T) => Type.Optional(Nullable(t));

const Seconds = Type.Integer({
  minimum: 0,
  maximum: 2147483647,
  description: 'Rounded up to 30, 120, 300, 3600, …, 2419200; 0 is the default',
});
const Ips = Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 });
const Tags = Type.Array(Type.String({ minLength: 3, maxLength: 50 }));
const DomainName = Type.String({ minLength: 1, maxLength: 253 });

export const DomainSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String({ enum: DOMAIN_TYPES }),
  domain: Type.String(),
  group: Type.String(),
  status: Type.String({ enum: DOMAIN_STATUSES }),
  description: Type.String(),
  soa_email: Type.String(),
  retry_sec: Type.Integer(),
  master_ips: Type.Array(Type.String()),
  axfr_ips: Type.Array(Type.String()),
  expire_sec: Type.Integer(),
  refresh_sec: Type.Integer(),
  ttl_sec: Type.Integer(),
  tags: Type.Array(Type.String()),
  created: DateTime(),
  updated: DateTime(),
  errors: Type.String({
    description: 'Why the zone is not served as it stands ("" when nothing is wrong)',
  }),
});
export type ApiDomain = Static<typeof DomainSchema>;

const domainFields = {
  soa_email: Opt(Type.String({ maxLength: 254 })),
  description: Opt(Type.String({ maxLength: 253 })),
  group: Opt(Type.String({ maxLength: 50 })),
  status: Opt(Type.String({ enum: DOMAIN_STATUSES })),
  retry_sec: Opt(Seconds),
  expire_sec: Opt(Seconds),
  refresh_sec: Opt(Seconds),
  ttl_sec: Opt(Seconds),
  master_ips: Opt(Ips),
  axfr_ips: Opt(Ips),
  tags: Opt(Tags),
};

export const CreateDomainBody = Type.Object({
  domain: DomainName,
  type: Type.String({ enum: DOMAIN_TYPES }),
  ...domainFields,
});
export type CreateDomain = Static<typeof CreateDomainBody>;

export const UpdateDomainBody = Type.Object({
  domain: Opt(DomainName),
  type: Opt(Type.String({ enum: DOMAIN_TYPES })),
  ...domainFields,
});
export type UpdateDomain = Static<typeof UpdateDomainBody>;

export const CloneDomainBody = Type.Object({ domain: DomainName });
export const ImportDomainBody = Type.Object({
  domain: DomainName,
  remote_nameserver: Type.String({ minLength: 1, maxLength: 253 }),
});
export type ImportDomain = Static<typeof ImportDomainBody>;

export const ZoneFileSchema = Type.Object({ zone_file: Type.Array(Type.String()) });

export const RecordSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String({ enum: RECORD_TYPES }),
  name: Type.String(),
  target: Type.String(),
  priority: Type.Integer(),
  weight: Type.Integer(),
  port: Type.Integer(),
  service: Nullable(Type.String()),
  protocol: Nullable(Type.String()),
  ttl_sec: Type.Integer(),
  tag: Nullable(Type.String({ enum: CAA_TAGS })),
  created: DateTime(),
  updated: DateTime(),
});
export type ApiRecord = Static<typeof RecordSchema>;

const recordFields = {
  name: Opt(Type.String({ maxLength: 100 })),
  target: Opt(Type.String({ maxLength: 65535 })),
  priority: Opt(Type.Integer({ minimum: 0, maximum: 255 })),
  weight: Opt(Type.Integer({ minimum: 0, maximum: 65535 })),
  port: Opt(Type.Integer({ minimum: 0, maximum: 65535 })),
  service: Opt(Type.String({ maxLength: 63 })),
  protocol: Opt(Type.String({ maxLength: 63 })),
  ttl_sec: Opt(Seconds),
  tag: Opt(Type.String({ enum: CAA_TAGS })),
};

export const CreateRecordBody = Type.Object({
  type: Type.String({ enum: RECORD_TYPES }),
  ...recordFields,
});
export type CreateRecord = Static<typeof CreateRecordBody>;

/** The reference's update body has no `type`: a record keeps its type. */
export const UpdateRecordBody = Type.Object(recordFields);
export type UpdateRecord = Static<typeof UpdateRecordBody>;

export const DomainParams = Type.Object({ domainId: Type.Integer() });
export const RecordParams = Type.Object({ domainId: Type.Integer(), recordId: Type.Integer() });
export const DomainPage = PageOf(DomainSchema);
export const RecordPage = PageOf(RecordSchema);
