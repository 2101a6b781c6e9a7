import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, pageOf } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import {
  dropSharedListings,
  parsePrivateImageId,
  replicasOf,
  syncListing,
  syncSharedListings,
  toSharedImage,
} from '../images/images.repository.js';
import type {
  AddImages,
  AddMember,
  ApiConsumerShareGroup,
  ApiMember,
  ApiShareGroup,
  ApiSharedImage,
  ApiToken,
  CreateShareGroup,
  CreateToken,
  UpdateShareGroup,
} from './sharing.schemas.js';
import type {
  ImageShareGroupsTable,
  ImageShareMembersTable,
  ImageSharesTable,
  ImageShareTokensTable,
} from './sharing.table.js';

type GroupRow = Selectable<ImageShareGroupsTable>;
type ShareRow = Selectable<ImageSharesTable>;
type TokenRow = Selectable<ImageShareTokensTable>;
type MemberRow = Selectable<ImageShareMembersTable>;

export interface SharingDeps {
  db: Database;
  clock: Clock;
}

const SHARED_ID = /^shared\/([1-9][0-9]{0,9})$/;
/** A token's secret: 64 hex characters (anything else is `Invalid token format`). */
const TOKEN_FORMAT = /^[0-9a-f]{64}$/;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The number in `shared/<n>`, or undefined. */
export function parseSharedId(id: string): number | undefined {
  const m = SHARED_ID.exec(id);
  const n = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(n) && n <= 2_147_483_647 ? n : undefined;
}

/**
 * The private image (`private/<n>`'s number) a consumer account may deploy as `shared/<id>`:
 * the entry's, when the account holds an `active` token of the entry's group (a member) and
 * the group is not suspended. Undefined otherwise (another account's entry, a pending or
 * revoked token, an unknown id).
 */
export async function sharedImageFor(
  db: Database,
  accountId: number,
  sharedId: string,
): Promise<number | undefined> {
  const n = parseSharedId(sharedId);
  if (n === undefined) return undefined;
  const row = await db.db
    .selectFrom('image_shares as s')
    .innerJoin('image_share_groups as g', 'g.id', 's.group_id')
    .innerJoin('image_share_tokens as t', 't.group_id', 's.group_id')
    .select('s.image_id')
    .where('s.id', '=', n)
    .where('g.is_suspended', '=', 0)
    .where('t.account_id', '=', accountId)
    .where('t.status', '=', 'active')
    .executeTakeFirst();
  return row?.image_id;
}

/**
 * The condition that `shareIdColumn` (an `images` row's `share_id`) is an entry of a group the
 * account is an active member of (the same rule as `sharedImageFor`): such rows are the shared
 * images the account lists and views.
 */
export function sharedImagesVisibleTo(
  accountId: number,
  shareIdColumn: string,
): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(shareIdColumn)} in (
    select s.id from image_shares s
    join image_share_groups g on g.id = s.group_id
    join image_share_tokens t on t.group_id = s.group_id
    where t.account_id = ${accountId} and t.status = 'active' and g.is_suspended = 0)`;
}

/** Every page of these lists is small (an account's groups, tokens, a group's images). */
function page<T>(params: PageParams, all: T[]): Promise<Page<T>> {
  return pageOf(
    params,
    async (limit, offset) => all.slice(offset, offset + limit),
    async () => all.length,
  );
}

/**
 * Image share groups. The producer side (`/images/sharegroups`, its images and members,
 * `/images/{id}/sharegroups`) is the account's that owns the groups; the consumer side
 * (`/images/sharegroups/tokens`) is the account that draws a token to join one group. A token
 * is `pending` until the group's producer adds it as a member (`POST …/members {token, label}`),
 * then `active` (its holder sees the group and its images), and `revoked` once the producer
 * removes the member. Groups and tokens are the account's, with no grants of their own:
 * restricted users need `add_images` to see or change them.
 */
export class SharingService {
  constructor(private readonly d: SharingDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  // ---- producer: groups ----

  private async group(db: Database, p: Principal, id: number, lock = false): Promise<GroupRow> {
    const q = db.db
      .selectFrom('image_share_groups')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', p.accountId);
    const row = await (lock ? db.forUpdate(q) : q).executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  private async groupViews(db: Database, rows: GroupRow[]): Promise<ApiShareGroup[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const count = async (table: 'image_shares' | 'image_share_members') =>
      new Map(
        (
          await db.db
            .selectFrom(table)
            .select(['group_id', (eb) => eb.fn.countAll<number | string>().as('n')])
            .where('group_id', 'in', ids)
            .groupBy('group_id')
            .execute()
        ).map((r) => [r.group_id, Number(r.n)]),
      );
    const [images, members] = await Promise.all([
      count('image_shares'),
      count('image_share_members'),
    ]);
    return rows.map((r) => ({
      id: r.id,
      uuid: r.uuid,
      label: r.label,
      description: r.description,
      is_suspended: r.is_suspended === 1,
      images_count: images.get(r.id) ?? 0,
      members_count: members.get(r.id) ?? 0,
      created: r.created,
      updated: r.updated,
      expiry: r.expiry,
    }));
  }

  private async groupView(db: Database, row: GroupRow): Promise<ApiShareGroup> {
    return (await this.groupViews(db, [row]))[0] as ApiShareGroup;
  }

  async listGroups(p: Principal, params: PageParams): Promise<Page<ApiShareGroup>> {
    authz.requireGlobal(p, 'add_images');
    const rows = await this.d.db.db
      .selectFrom('image_share_groups')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .orderBy('id')
      .execute();
    return page(params, await this.groupViews(this.d.db, rows));
  }

  async getGroup(p: Principal, id: number): Promise<ApiShareGroup> {
    authz.requireGlobal(p, 'add_images');
    return this.groupView(this.d.db, await this.group(this.d.db, p, id));
  }

  async createGroup(p: Principal, b: CreateShareGroup): Promise<ApiShareGroup> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const { id } = await tx.db
        .insertInto('image_share_groups')
        .values({
          account_id: p.accountId,
          uuid: randomUUID(),
          label: b.label,
          description: b.description ?? '',
          created: this.now(),
          updated: null,
          expiry: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const group = await this.group(tx, p, id);
      if (b.images && b.images.length > 0) await this.share(tx, p, group, b.images, 'images');
      return this.groupView(tx, group);
    });
  }

  async updateGroup(p: Principal, id: number, b: UpdateShareGroup): Promise<ApiShareGroup> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, id, true);
      const set = {
        ...(b.label != null ? { label: b.label } : {}),
        ...(b.description !== undefined ? { description: b.description ?? '' } : {}),
        updated: this.now(),
      };
      await tx.db.updateTable('image_share_groups').set(set).where('id', '=', id).execute();
      // Its entries, as members list them, carry the group's label.
      await syncSharedListings(tx, { groupId: id });
      return this.groupView(tx, { ...group, ...set });
    });
  }

  /** Deleting a group ends its shares and memberships; its members' tokens go with it. */
  async deleteGroup(p: Principal, id: number): Promise<void> {
    authz.requireGlobal(p, 'add_images');
    await this.d.db.transaction(async (tx) => {
      await this.group(tx, p, id, true);
      const images = await tx.db
        .selectFrom('image_shares')
        .select(['id', 'image_id'])
        .where('group_id', '=', id)
        .execute();
      await dropSharedListings(
        tx,
        images.map((s) => s.id),
      );
      await tx.db.deleteFrom('image_share_members').where('group_id', '=', id).execute();
      await tx.db.deleteFrom('image_share_tokens').where('group_id', '=', id).execute();
      await tx.db.deleteFrom('image_shares').where('group_id', '=', id).execute();
      await tx.db.deleteFrom('image_share_groups').where('id', '=', id).execute();
      for (const { image_id } of images) await syncListing(tx, image_id);
    });
  }

  // ---- producer: shared images ----

  private async sharedViews(
    db: Database,
    group: GroupRow,
    shares: ShareRow[],
    producer: boolean,
  ): Promise<ApiSharedImage[]> {
    const out: ApiSharedImage[] = [];
    for (const s of shares) {
      const img = await db.db
        .selectFrom('private_images')
        .selectAll()
        .where('id', '=', s.image_id)
        .executeTakeFirst();
      if (!img) continue;
      const share = { ...s, group: { id: group.id, uuid: group.uuid, label: group.label } };
      out.push(toSharedImage(img, await replicasOf(db, img.id), share, producer));
    }
    return out;
  }

  private sharesOf(db: Database, groupId: number): Promise<ShareRow[]> {
    return db.db
      .selectFrom('image_shares')
      .selectAll()
      .where('group_id', '=', groupId)
      .orderBy('id')
      .execute();
  }

  /**
   * Adds private images of the account to a group: each must be the caller's to change and
   * available, and not shared there already (400 naming `<field>[i].id`, nothing is added).
   */
  private async share(
    tx: Database,
    p: Principal,
    group: GroupRow,
    images: AddImages['images'],
    field: string,
  ): Promise<ShareRow[]> {
    const fe = new FieldErrors();
    const rows: { imageId: number; label: string; description: string }[] = [];
    const seen = new Set<number>();
    for (const [i, img] of images.entries()) {
      const id = parsePrivateImageId(img.id);
      const row =
        id === undefined
          ? undefined
          : await tx.db
              .selectFrom('private_images')
              .select(['id', 'label', 'status'])
              .where('id', '=', id)
              .where('account_id', '=', p.accountId)
              .executeTakeFirst();
      if (!row) {
        fe.add(`${field}[${i}].id`, 'Image not found.');
        continue;
      }
      if ((await authz.permissionOn(tx, p, 'image', row.id)) !== 'read_write') {
        fe.add(`${field}[${i}].id`, 'Image not found.');
        continue;
      }
      if (row.status !== 'available') {
        fe.add(`${field}[${i}].id`, 'Image is not available.');
        continue;
      }
      const dup = await tx.db
        .selectFrom('image_shares')
        .select('id')
        .where('group_id', '=', group.id)
        .where('image_id', '=', row.id)
        .executeTakeFirst();
      if (dup || seen.has(row.id)) {
        fe.add(`${field}[${i}].id`, 'Image is already shared in this share group.');
        continue;
      }
      seen.add(row.id);
      rows.push({
        imageId: row.id,
        label: img.label ?? row.label,
        description: img.description ?? '',
      });
    }
    fe.throwIfAny();
    const added: ShareRow[] = [];
    for (const r of rows) {
      const row = await tx.db
        .insertInto('image_shares')
        .values({
          group_id: group.id,
          image_id: r.imageId,
          label: r.label,
          description: r.description,
          created: this.now(),
          updated: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      added.push(row);
      await syncListing(tx, r.imageId);
    }
    return added;
  }

  async listShares(
    p: Principal,
    groupId: number,
    params: PageParams,
  ): Promise<Page<ApiSharedImage>> {
    authz.requireGlobal(p, 'add_images');
    const group = await this.group(this.d.db, p, groupId);
    const shares = await this.sharesOf(this.d.db, group.id);
    return page(params, await this.sharedViews(this.d.db, group, shares, true));
  }

  /** `POST …/images`: the entries added, as a page (the SDKs read a page). */
  async addImages(p: Principal, groupId: number, b: AddImages): Promise<Page<ApiSharedImage>> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, groupId, true);
      const added = await this.share(tx, p, group, b.images, 'images');
      return page({}, await this.sharedViews(tx, group, added, true));
    });
  }

  private async shareOf(db: Database, group: GroupRow, shareId: string): Promise<ShareRow> {
    const n = parseSharedId(shareId);
    const row =
      n === undefined
        ? undefined
        : await db.db
            .selectFrom('image_shares')
            .selectAll()
            .where('id', '=', n)
            .where('group_id', '=', group.id)
            .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async updateShare(
    p: Principal,
    groupId: number,
    shareId: string,
    b: UpdateShareGroup,
  ): Promise<ApiSharedImage> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, groupId, true);
      const share = await this.shareOf(tx, group, shareId);
      const set = {
        ...(b.label != null ? { label: b.label } : {}),
        ...(b.description !== undefined ? { description: b.description ?? '' } : {}),
        updated: this.now(),
      };
      await tx.db.updateTable('image_shares').set(set).where('id', '=', share.id).execute();
      await syncSharedListings(tx, { shareId: share.id });
      const [view] = await this.sharedViews(tx, group, [{ ...share, ...set }], true);
      if (!view) throw errors.notFound();
      return view;
    });
  }

  async removeShare(p: Principal, groupId: number, shareId: string): Promise<void> {
    authz.requireGlobal(p, 'add_images');
    await this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, groupId, true);
      const share = await this.shareOf(tx, group, shareId);
      await dropSharedListings(tx, [share.id]);
      await tx.db.deleteFrom('image_shares').where('id', '=', share.id).execute();
      await syncListing(tx, share.image_id);
    });
  }

  /** `GET /images/{imageId}/sharegroups`: the groups a private image of the caller's is in. */
  async groupsOfImage(
    p: Principal,
    imageId: string,
    params: PageParams,
  ): Promise<Page<ApiShareGroup>> {
    authz.requireGlobal(p, 'add_images');
    const id = parsePrivateImageId(imageId);
    const img =
      id === undefined
        ? undefined
        : await this.d.db.db
            .selectFrom('private_images')
            .select('id')
            .where('id', '=', id)
            .where('account_id', '=', p.accountId)
            .executeTakeFirst();
    if (!img) throw errors.notFound();
    await authz.requireEntity(this.d.db, p, 'image', img.id, 'read_only');
    const rows = await this.d.db.db
      .selectFrom('image_share_groups')
      .innerJoin('image_shares', 'image_shares.group_id', 'image_share_groups.id')
      .selectAll('image_share_groups')
      .where('image_shares.image_id', '=', img.id)
      .orderBy('image_share_groups.id')
      .execute();
    return page(params, await this.groupViews(this.d.db, rows));
  }

  // ---- producer: members ----

  private async memberViews(db: Database, rows: MemberRow[]): Promise<ApiMember[]> {
    const out: ApiMember[] = [];
    for (const m of rows) {
      const t = await db.db
        .selectFrom('image_share_tokens')
        .select('token_uuid')
        .where('id', '=', m.token_id)
        .executeTakeFirst();
      if (!t) continue;
      out.push({
        token_uuid: t.token_uuid,
        status: m.status,
        label: m.label,
        created: m.created,
        updated: m.updated,
        expiry: m.expiry,
      });
    }
    return out;
  }

  private async member(db: Database, group: GroupRow, tokenUuid: string): Promise<MemberRow> {
    const row = await db.db
      .selectFrom('image_share_members')
      .innerJoin('image_share_tokens', 'image_share_tokens.id', 'image_share_members.token_id')
      .selectAll('image_share_members')
      .where('image_share_members.group_id', '=', group.id)
      .where('image_share_tokens.token_uuid', '=', tokenUuid)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async listMembers(p: Principal, groupId: number, params: PageParams): Promise<Page<ApiMember>> {
    authz.requireGlobal(p, 'add_images');
    const group = await this.group(this.d.db, p, groupId);
    const rows = await this.d.db.db
      .selectFrom('image_share_members')
      .selectAll()
      .where('group_id', '=', group.id)
      .orderBy('id')
      .execute();
    return page(params, await this.memberViews(this.d.db, rows));
  }

  async getMember(p: Principal, groupId: number, tokenUuid: string): Promise<ApiMember> {
    authz.requireGlobal(p, 'add_images');
    const group = await this.group(this.d.db, p, groupId);
    const [view] = await this.memberViews(this.d.db, [
      await this.member(this.d.db, group, tokenUuid),
    ]);
    if (!view) throw errors.notFound();
    return view;
  }

  /**
   * Adds a member with the token a consumer account drew for this group: the token must have the
   * secret's format, exist, be valid for this group and not used yet (400 on `token`).
   */
  async addMember(p: Principal, groupId: number, b: AddMember): Promise<ApiMember> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, groupId, true);
      if (!TOKEN_FORMAT.test(b.token)) throw errors.invalidField('token', 'Invalid token format');
      const token = await tx
        .forUpdate(
          tx.db
            .selectFrom('image_share_tokens')
            .selectAll()
            .where('token_hash', '=', sha256(b.token)),
        )
        .executeTakeFirst();
      if (!token || token.group_id !== group.id) {
        throw errors.invalidField('token', 'Token is not valid for this share group.');
      }
      if (token.status !== 'pending') {
        throw errors.invalidField('token', 'Token has already been used.');
      }
      const now = this.now();
      const member = await tx.db
        .insertInto('image_share_members')
        .values({
          group_id: group.id,
          token_id: token.id,
          label: b.label,
          status: 'active',
          created: now,
          updated: null,
          expiry: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await tx.db
        .updateTable('image_share_tokens')
        .set({ status: 'active', updated: now })
        .where('id', '=', token.id)
        .execute();
      const [view] = await this.memberViews(tx, [member]);
      return view as ApiMember;
    });
  }

  async updateMember(
    p: Principal,
    groupId: number,
    tokenUuid: string,
    label: string,
  ): Promise<ApiMember> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, groupId, true);
      const m = await this.member(tx, group, tokenUuid);
      const updated = this.now();
      await tx.db
        .updateTable('image_share_members')
        .set({ label, updated })
        .where('id', '=', m.id)
        .execute();
      const [view] = await this.memberViews(tx, [{ ...m, label, updated }]);
      return view as ApiMember;
    });
  }

  /** Removing a member ends its access; the consumer's token shows `revoked`. */
  async removeMember(p: Principal, groupId: number, tokenUuid: string): Promise<void> {
    authz.requireGlobal(p, 'add_images');
    await this.d.db.transaction(async (tx) => {
      const group = await this.group(tx, p, groupId, true);
      const m = await this.member(tx, group, tokenUuid);
      await tx.db.deleteFrom('image_share_members').where('id', '=', m.id).execute();
      await tx.db
        .updateTable('image_share_tokens')
        .set({ status: 'revoked', updated: this.now() })
        .where('id', '=', m.token_id)
        .execute();
    });
  }

  // ---- consumer: tokens ----

  private async tokenViews(db: Database, rows: TokenRow[]): Promise<ApiToken[]> {
    const out: ApiToken[] = [];
    for (const t of rows) {
      const g = await db.db
        .selectFrom('image_share_groups')
        .select(['uuid', 'label'])
        .where('id', '=', t.group_id)
        .executeTakeFirst();
      const joined = t.status === 'active' && g !== undefined;
      out.push({
        token_uuid: t.token_uuid,
        status: t.status,
        label: t.label,
        valid_for_sharegroup_uuid: g?.uuid ?? '',
        created: t.created,
        updated: t.updated,
        expiry: t.expiry,
        sharegroup_uuid: joined ? g.uuid : null,
        sharegroup_label: joined ? g.label : null,
      });
    }
    return out;
  }

  private async token(
    db: Database,
    p: Principal,
    tokenUuid: string,
    lock = false,
  ): Promise<TokenRow> {
    const q = db.db
      .selectFrom('image_share_tokens')
      .selectAll()
      .where('token_uuid', '=', tokenUuid)
      .where('account_id', '=', p.accountId);
    const row = await (lock ? db.forUpdate(q) : q).executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async listTokens(p: Principal, params: PageParams): Promise<Page<ApiToken>> {
    authz.requireGlobal(p, 'add_images');
    const rows = await this.d.db.db
      .selectFrom('image_share_tokens')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .orderBy('id')
      .execute();
    return page(params, await this.tokenViews(this.d.db, rows));
  }

  async getToken(p: Principal, tokenUuid: string): Promise<ApiToken> {
    authz.requireGlobal(p, 'add_images');
    const [view] = await this.tokenViews(this.d.db, [await this.token(this.d.db, p, tokenUuid)]);
    return view as ApiToken;
  }

  /**
   * Draws a token to join another account's group (the secret `token` is answered once, and
   * stored only as its SHA-256). A group of the caller's own account: 400 with the real words.
   */
  async createToken(p: Principal, b: CreateToken): Promise<ApiToken & { token: string }> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const group = await tx.db
        .selectFrom('image_share_groups')
        .select(['id', 'account_id'])
        .where('uuid', '=', b.valid_for_sharegroup_uuid)
        .executeTakeFirst();
      if (!group) {
        throw errors.invalidField('valid_for_sharegroup_uuid', 'Share group not found.');
      }
      if (group.account_id === p.accountId) {
        throw errors.invalidField(
          'valid_for_sharegroup_uuid',
          'You may not create a token for your own sharegroup',
        );
      }
      const secret = randomBytes(32).toString('hex');
      const row = await tx.db
        .insertInto('image_share_tokens')
        .values({
          account_id: p.accountId,
          token_uuid: randomUUID(),
          token_hash: sha256(secret),
          label: b.label ?? '',
          group_id: group.id,
          status: 'pending',
          created: this.now(),
          updated: null,
          expiry: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const [view] = await this.tokenViews(tx, [row]);
      return { token: secret, ...(view as ApiToken) };
    });
  }

  async updateToken(p: Principal, tokenUuid: string, label: string): Promise<ApiToken> {
    authz.requireGlobal(p, 'add_images');
    return this.d.db.transaction(async (tx) => {
      const t = await this.token(tx, p, tokenUuid, true);
      const updated = this.now();
      await tx.db
        .updateTable('image_share_tokens')
        .set({ label, updated })
        .where('id', '=', t.id)
        .execute();
      const [view] = await this.tokenViews(tx, [{ ...t, label, updated }]);
      return view as ApiToken;
    });
  }

  /** Deleting a token leaves the group (its membership goes with it). */
  async deleteToken(p: Principal, tokenUuid: string): Promise<void> {
    authz.requireGlobal(p, 'add_images');
    await this.d.db.transaction(async (tx) => {
      const t = await this.token(tx, p, tokenUuid, true);
      await tx.db.deleteFrom('image_share_members').where('token_id', '=', t.id).execute();
      await tx.db.deleteFrom('image_share_tokens').where('id', '=', t.id).execute();
    });
  }

  /** The group a token joined: 404 until the producer has added its member. */
  private async joined(p: Principal, tokenUuid: string): Promise<GroupRow> {
    authz.requireGlobal(p, 'add_images');
    const t = await this.token(this.d.db, p, tokenUuid);
    const g =
      t.status === 'active'
        ? await this.d.db.db
            .selectFrom('image_share_groups')
            .selectAll()
            .where('id', '=', t.group_id)
            .executeTakeFirst()
        : undefined;
    if (!g) throw errors.notFound();
    return g;
  }

  async tokenGroup(p: Principal, tokenUuid: string): Promise<ApiConsumerShareGroup> {
    const g = await this.joined(p, tokenUuid);
    return {
      id: g.id,
      uuid: g.uuid,
      label: g.label,
      description: g.description,
      is_suspended: g.is_suspended === 1,
      created: g.created,
      updated: g.updated,
    };
  }

  async tokenGroupImages(
    p: Principal,
    tokenUuid: string,
    params: PageParams,
  ): Promise<Page<ApiSharedImage>> {
    const g = await this.joined(p, tokenUuid);
    const shares = await this.sharesOf(this.d.db, g.id);
    return page(params, await this.sharedViews(this.d.db, g, shares, false));
  }
}
