import { type RawBuilder, sql } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { BETA_PROGRAMS, type BetaProgram } from './betas.data.js';

type XFilter = string | string[] | undefined;

interface ProgramRow {
  id: string;
  label: string;
  description: string | null;
  started: string;
  ended: string | null;
  greenlight_only: number;
  more_info: string | null;
}

export type EnrolledProgram = Omit<BetaProgram, 'greenlight_only' | 'more_info'> & {
  enrolled: string;
};

const PROGRAM_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'b.label' },
  greenlight_only: { kind: 'bool', column: 'b.greenlight_only' },
  started: { kind: 'datetime', column: 'b.started' },
  ended: { kind: 'datetime', column: 'b.ended' },
};
const ENROLLED_FILTERS: FilterSpec = {
  ...PROGRAM_FILTERS,
  enrolled: { kind: 'datetime', column: 'e.enrolled' },
};

/**
 * The shipped programs as a derived table, so listing, paging and X-Filter run in SQL like any
 * other collection (the same statement on both engines).
 */
function programsTable(): RawBuilder<ProgramRow> {
  const text = (v: string | null) => sql`cast(${v} as text)`;
  const rows = BETA_PROGRAMS.map(
    (b) =>
      sql`select ${text(b.id)} as id, ${text(b.label)} as label, ${text(b.description)} as description, ${text(b.started)} as started, ${text(b.ended)} as ended, cast(${b.greenlight_only ? 1 : 0} as integer) as greenlight_only, ${text(b.more_info)} as more_info`,
  );
  return sql<ProgramRow>`(${sql.join(rows, sql` union all `)})`;
}

const toProgram = (r: ProgramRow): BetaProgram => ({
  id: r.id,
  label: r.label,
  description: r.description,
  started: r.started,
  ended: r.ended,
  greenlight_only: toBool(r.greenlight_only),
  more_info: r.more_info,
});

/**
 * Beta programs (`/betas`: the active ones listed, any one by id) and the account's enrolments
 * (`/account/betas`). Unrestricted users only. An account enrols in an active program once;
 * programs for Greenlight participants are closed to accounts outside Greenlight (every Stratus
 * account).
 */
export class BetasService {
  constructor(private readonly d: { db: Database; clock: Clock }) {}

  private programs() {
    return this.d.db.db.selectFrom(programsTable().as('b'));
  }

  private active(nowIso: string) {
    return sql<boolean>`(b.started <= ${nowIso} and (b.ended is null or b.ended > ${nowIso}))`;
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<BetaProgram>> {
    authz.requireUnrestricted(p);
    const now = isoSeconds(this.d.clock.nowMs());
    return paginate(
      this.programs().where(this.active(now)),
      (qb) => qb.selectAll('b'),
      compileFilter(xf, PROGRAM_FILTERS, this.d.db.dialect),
      params,
      { idColumn: 'b.id' },
      (r: ProgramRow) => toProgram(r),
    );
  }

  async get(p: Principal, id: string): Promise<BetaProgram> {
    authz.requireUnrestricted(p);
    const row = await this.programs().selectAll('b').where('b.id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound();
    return toProgram(row as ProgramRow);
  }

  private enrolledQuery(accountId: number) {
    return this.programs()
      .innerJoin('beta_enrollments as e', 'e.beta_id', 'b.id')
      .where('e.account_id', '=', accountId);
  }

  private static toEnrolled(r: ProgramRow & { enrolled: string }): EnrolledProgram {
    return {
      id: r.id,
      label: r.label,
      description: r.description,
      started: r.started,
      ended: r.ended,
      enrolled: r.enrolled,
    };
  }

  async enrolled(p: Principal, params: PageParams, xf: XFilter): Promise<Page<EnrolledProgram>> {
    authz.requireUnrestricted(p);
    return paginate(
      this.enrolledQuery(p.accountId),
      (qb) => qb.selectAll('b').select('e.enrolled'),
      compileFilter(xf, ENROLLED_FILTERS, this.d.db.dialect),
      params,
      { idColumn: 'b.id' },
      (r: ProgramRow & { enrolled: string }) => BetasService.toEnrolled(r),
    );
  }

  async enrolledOne(p: Principal, id: string): Promise<EnrolledProgram> {
    authz.requireUnrestricted(p);
    const row = await this.enrolledQuery(p.accountId)
      .selectAll('b')
      .select('e.enrolled')
      .where('b.id', '=', id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return BetasService.toEnrolled(row as ProgramRow & { enrolled: string });
  }

  /** Enrols the account in an active program it is not in yet. */
  async enroll(p: Principal, id: string): Promise<void> {
    authz.requireUnrestricted(p);
    const now = isoSeconds(this.d.clock.nowMs());
    const program = BETA_PROGRAMS.find((b) => b.id === id);
    if (!program) throw errors.invalidField('id', 'Beta program not found.');
    if (program.started > now || (program.ended !== null && program.ended <= now))
      throw errors.invalidField('id', 'This beta program is not active.');
    if (program.greenlight_only)
      throw errors.invalidField(
        'id',
        'This beta program is only open to accounts that take part in Greenlight.',
      );
    await this.d.db.transaction(async (tx) => {
      const res = await tx.db
        .insertInto('beta_enrollments')
        .values({ account_id: p.accountId, beta_id: id, enrolled: now })
        .onConflict((oc) => oc.columns(['account_id', 'beta_id']).doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0)
        throw errors.invalidField('id', 'The account is already enrolled in this beta program.');
    });
  }
}
