import { Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** The fixed list of questions a user picks from; ids are stable. */
export const SECURITY_QUESTIONS: ReadonlyArray<{ id: number; question: string }> = [
  { id: 1, question: 'In what city were you born?' },
  { id: 2, question: 'What was the name of your first pet?' },
  { id: 3, question: 'What is your favorite color?' },
  { id: 4, question: 'What was the make of your first car?' },
  { id: 5, question: 'What was the name of your elementary school?' },
  { id: 6, question: 'In what city did your parents meet?' },
  { id: 7, question: 'What is the middle name of your oldest sibling?' },
  { id: 8, question: 'What was the first concert you attended?' },
  { id: 9, question: 'What was your childhood nickname?' },
  { id: 10, question: 'What is the name of the street you grew up on?' },
  { id: 11, question: 'What was the name of your first employer?' },
  { id: 12, question: 'What is your favorite book?' },
  { id: 13, question: 'What was the name of your first teacher?' },
  { id: 14, question: 'In what city was your first job?' },
  { id: 15, question: 'What is your oldest cousin’s first name?' },
];

/** The reference's rules: exactly three distinct questions, answers of 3 to 17 characters. */
export const ANSWERS_REQUIRED = 3;
export const RESPONSE_MIN = 3;
export const RESPONSE_MAX = 17;

/** What GET shows for an answered question: answers are stored hashed and cannot be shown. */
export const ANSWERED = '<REDACTED>';

const Id = Type.Integer({ description: 'The ID representing the security question.' });
const Question = Type.String({ description: 'The security question.' });
const Response = Type.String({ minLength: RESPONSE_MIN, maxLength: RESPONSE_MAX });

export const SecurityQuestionsGet = Type.Object({
  security_questions: Type.Array(
    Type.Object({ id: Id, question: Question, response: Type.Union([Response, Type.Null()]) }),
  ),
});

export const SecurityQuestionsPostBody = Type.Object({
  security_questions: Type.Array(
    Type.Object({
      question_id: Id,
      response: Type.String({ maxLength: 1024 }),
    }),
    { maxItems: 64 },
  ),
});

export const SecurityQuestionsPostReply = Type.Object({
  security_questions: Type.Array(
    Type.Object({ question_id: Id, response: Response, security_question: Question }),
  ),
});

type Answer = { question_id: number; response: string };

/** Case, surrounding and repeated spaces and Unicode forms do not change an answer. */
export function normalizeAnswer(response: string): string {
  return response.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** `/profile/security-questions`: answers stored as memory-hard hashes, never in clear. */
export class SecurityQuestionsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async list(p: Principal) {
    const rows = await this.db.db
      .selectFrom('security_answers')
      .select('question_id')
      .where('user_id', '=', p.userId)
      .execute();
    const answered = new Set(rows.map((r) => r.question_id));
    return {
      security_questions: SECURITY_QUESTIONS.map((q) => ({
        id: q.id,
        question: q.question,
        response: answered.has(q.id) ? ANSWERED : null,
      })),
    };
  }

  /** Whether a user has answered the questions (two-factor authentication needs it). */
  async answered(userId: number): Promise<boolean> {
    const row = await this.db.db
      .selectFrom('security_answers')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.n ?? 0) >= ANSWERS_REQUIRED;
  }

  /** Whether an answer matches the stored one (account recovery checks). */
  async check(userId: number, questionId: number, response: string): Promise<boolean> {
    const row = await this.db.db
      .selectFrom('security_answers')
      .select('response_hash')
      .where('user_id', '=', userId)
      .where('question_id', '=', questionId)
      .executeTakeFirst();
    return row ? verifyPassword(normalizeAnswer(response), row.response_hash) : false;
  }

  /** Replaces every answer: the three given are stored, all others become unanswered. */
  async answer(p: Principal, body: { security_questions: Answer[] }) {
    const given = body.security_questions;
    const fe = new FieldErrors();
    if (given.length !== ANSWERS_REQUIRED)
      fe.add('security_questions', `Exactly ${ANSWERS_REQUIRED} security questions are required`);
    const seen = new Set<number>();
    given.forEach((a, i) => {
      if (!SECURITY_QUESTIONS.some((q) => q.id === a.question_id))
        fe.add(`security_questions[${i}].question_id`, 'Unknown security question');
      else if (seen.has(a.question_id))
        fe.add(`security_questions[${i}].question_id`, 'Security questions must be unique');
      seen.add(a.question_id);
      const len = [...a.response.trim()].length;
      fe.check(
        len < RESPONSE_MIN || len > RESPONSE_MAX,
        `security_questions[${i}].response`,
        `Responses must be ${RESPONSE_MIN} to ${RESPONSE_MAX} characters`,
      );
    });
    fe.throwIfAny();
    const hashes = await Promise.all(given.map((a) => hashPassword(normalizeAnswer(a.response))));
    const updated = isoSeconds(this.clock.nowMs());
    await this.db.transaction(async (tx) => {
      // Answers sent at once: one after the other, so the user ends with exactly three.
      await tx
        .forUpdate(tx.db.selectFrom('users').select('id').where('id', '=', p.userId))
        .execute();
      await tx.db.deleteFrom('security_answers').where('user_id', '=', p.userId).execute();
      await tx.db
        .insertInto('security_answers')
        .values(
          given.map((a, i) => ({
            user_id: p.userId,
            question_id: a.question_id,
            response_hash: hashes[i] as string,
            updated,
          })),
        )
        .execute();
    });
    return {
      security_questions: given.map((a) => ({
        question_id: a.question_id,
        response: a.response.trim(),
        security_question: SECURITY_QUESTIONS.find((q) => q.id === a.question_id)?.question ?? '',
      })),
    };
  }
}
