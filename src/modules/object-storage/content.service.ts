import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { BucketsService } from './buckets.service.js';
import { clusterEndpoint } from './objects.clusters.js';
import type { Sealer } from '../../platform/sealer.js';
import { findObject } from './objects.repository.js';
import { listObjects } from './objects.listing.js';
import { OBJECT_URL_METHODS, pemFromApi } from './objects.rules.js';
import type {
  ApiObjectAcl,
  ApiObjectList,
  ObjectAclUpdate,
  ObjectListParams,
  ObjectUrlRequest,
  SslUpload,
} from './objects.schemas.js';
import type { KeysService } from './keys.service.js';
import { cannedAclDocument } from './s3/s3.acl.js';
import { presign, uriEncode } from './s3/sigv4.js';

export interface ContentDeps {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  buckets: BucketsService;
  keys: KeysService;
}

/** Object ACLs, object listing, pre-signed URLs and TLS certificates of a bucket. */
export class ContentService {
  constructor(private readonly d: ContentDeps) {}

  private async object(p: Principal, cluster: string, label: string, name: string) {
    const b = await this.d.buckets.load(this.d.db, p, cluster, label);
    const obj = await findObject(this.d.db, b.id, name);
    if (!obj) throw errors.notFound();
    return { b, obj };
  }

  async getAcl(p: Principal, cluster: string, label: string, name: string): Promise<ApiObjectAcl> {
    authz.requireAccountAccess(p, 'read_only');
    const { obj } = await this.object(p, cluster, label, name);
    return { acl: obj.acl, acl_xml: cannedAclDocument(obj.acl, p.accountEuuid, obj.grants) };
  }

  async putAcl(
    p: Principal,
    cluster: string,
    label: string,
    body: ObjectAclUpdate,
  ): Promise<ApiObjectAcl> {
    authz.requireAccountAccess(p, 'read_write');
    const { obj } = await this.object(p, cluster, label, body.name);
    await this.d.db.db
      .updateTable('obj_objects')
      .set({ acl: body.acl, grants: null })
      .where('id', '=', obj.id)
      .execute();
    return { acl: body.acl, acl_xml: cannedAclDocument(body.acl, p.accountEuuid) };
  }

  async list(
    p: Principal,
    cluster: string,
    label: string,
    q: ObjectListParams,
  ): Promise<ApiObjectList> {
    authz.requireAccountAccess(p, 'read_only');
    const b = await this.d.buckets.load(this.d.db, p, cluster, label);
    const listing = await listObjects(this.d.db, b.id, {
      ...(q.prefix !== undefined ? { prefix: q.prefix } : {}),
      ...(q.delimiter !== undefined ? { delimiter: q.delimiter } : {}),
      ...(q.marker !== undefined && q.marker !== '' ? { after: q.marker } : {}),
      max: q.page_size ?? 100,
    });
    return {
      data: listing.entries.map((e) =>
        e.row
          ? {
              name: e.name,
              etag: e.row.etag,
              last_modified: `${e.row.last_modified}.000Z`,
              owner: p.accountEuuid,
              size: Number(e.row.size),
            }
          : { name: e.name },
      ),
      next_marker: listing.next ?? null,
      is_truncated: listing.truncated,
    };
  }

  /**
   * A SigV4 pre-signed URL signed with the account's internal key. For PUT and POST the content
   * type is a signed header: the client must send it unchanged.
   */
  async url(
    p: Principal,
    base: string,
    cluster: string,
    label: string,
    body: ObjectUrlRequest,
  ): Promise<{ url: string; exists: boolean }> {
    authz.requireAccountAccess(p, 'read_write');
    const method = body.method.toUpperCase();
    const fe = new FieldErrors();
    if (!(OBJECT_URL_METHODS as readonly string[]).includes(method))
      fe.add('method', `Must be one of ${OBJECT_URL_METHODS.join(', ')}.`);
    const needsType = method !== 'GET' && method !== 'DELETE';
    if (needsType && (body.content_type === undefined || body.content_type === ''))
      fe.add('content_type', `content_type is required for ${method}.`);
    if (body.name === '') fe.add('name', 'name is required.');
    fe.throwIfAny();
    const b = await this.d.buckets.load(this.d.db, p, cluster, label);
    const key = await this.d.keys.systemKey(p.accountId);
    const url = new URL(
      `${clusterEndpoint(base, b.cluster)}/${uriEncode(label)}/${uriEncode(body.name, true)}`,
    );
    // Whether the name has a current object (a delete marker is none), as the real service says.
    const exists = (await findObject(this.d.db, b.id, body.name)) !== undefined;
    return {
      exists,
      url: presign({
        method,
        url,
        accessKey: key.accessKey,
        secret: key.secret,
        region: b.cluster,
        nowMs: this.d.clock.nowMs(),
        expiresIn: body.expires_in ?? 3600,
        ...(needsType ? { headers: { 'content-type': body.content_type as string } } : {}),
      }),
    };
  }

  async sslGet(p: Principal, cluster: string, label: string): Promise<{ ssl: boolean }> {
    authz.requireAccountAccess(p, 'read_only');
    const b = await this.d.buckets.load(this.d.db, p, cluster, label);
    return { ssl: b.ssl_cert !== null };
  }

  /** Checks the pair as real X.509 and a matching, current key; stores the key sealed. */
  async sslPost(
    p: Principal,
    cluster: string,
    label: string,
    body: SslUpload,
  ): Promise<{ ssl: boolean }> {
    authz.requireAccountAccess(p, 'read_write');
    const b = await this.d.buckets.load(this.d.db, p, cluster, label);
    if (b.ssl_cert !== null)
      throw errors.reason(
        'A certificate is already installed. Delete it before uploading another.',
      );
    const certPem = pemFromApi(body.certificate);
    const keyPem = pemFromApi(body.private_key);
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(certPem);
    } catch {
      throw errors.invalidField('certificate', 'Invalid certificate.');
    }
    let matches = false;
    try {
      const key = createPrivateKey(keyPem);
      matches = cert.checkPrivateKey(key);
      if (!matches) {
        // Compare public halves too (some key types are not checked by checkPrivateKey).
        const pub = createPublicKey(key).export({ type: 'spki', format: 'der' });
        matches = pub.equals(cert.publicKey.export({ type: 'spki', format: 'der' }));
      }
    } catch {
      throw errors.invalidField('private_key', 'Invalid private key.');
    }
    if (!matches)
      throw errors.invalidField('private_key', 'The private key does not match the certificate.');
    const now = this.d.clock.nowMs();
    if (Date.parse(cert.validTo) <= now)
      throw errors.invalidField('certificate', 'The certificate has expired.');
    if (Date.parse(cert.validFrom) > now)
      throw errors.invalidField('certificate', 'The certificate is not yet valid.');
    await this.d.db.db
      .updateTable('obj_buckets')
      .set({ ssl_cert: certPem, ssl_key_sealed: await this.d.sealer.seal(keyPem) })
      .where('id', '=', b.id)
      .execute();
    return { ssl: true };
  }

  async sslDelete(p: Principal, cluster: string, label: string): Promise<Record<string, never>> {
    authz.requireAccountAccess(p, 'read_write');
    const b = await this.d.buckets.load(this.d.db, p, cluster, label);
    await this.d.db.db
      .updateTable('obj_buckets')
      .set({ ssl_cert: null, ssl_key_sealed: null })
      .where('id', '=', b.id)
      .execute();
    return {};
  }
}
