import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import { decodeCursor, encodeKeyCursor, stringKey, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import { labelKey } from './queries.js';
import type { AnnotationRecord, annotationQueries, subscriptionQueries } from './queries.js';

export const ANNOTATION_LIMITS = { noteLength: 4000, labels: 20, labelLength: 32 } as const;

export interface AnnotationView {
  contact_id: string;
  note: string;
  labels: string[];
  updated_at: string;
  version: number;
  schema_version: 1;
}

export const annotationView = (row: AnnotationRecord): AnnotationView => ({
  contact_id: row.subscription_id,
  note: row.note,
  labels: JSON.parse(row.labels) as string[],
  updated_at: new Date(row.updated_at).toISOString(),
  version: row.version,
  schema_version: 1,
});

/** Cleans a note and labels: ≤ 4000 characters; ≤ 20 labels of 1–32, unique ignoring case. */
function clean(input: { note?: string; labels?: string[] }): { note?: string; labels?: string[] } {
  const errors: FieldError[] = [];
  const out: { note?: string; labels?: string[] } = {};
  if (input.note !== undefined) {
    const note = cleanText(input.note, { path: '/note', max: ANNOTATION_LIMITS.noteLength, multiline: true });
    if (!note.ok) errors.push(note.error);
    else out.note = note.text;
  }
  if (input.labels !== undefined) {
    if (input.labels.length > ANNOTATION_LIMITS.labels) errors.push({ path: '/labels', code: 'too_many_labels', message: `at most ${ANNOTATION_LIMITS.labels} labels` });
    const seen = new Set<string>();
    const labels: string[] = [];
    input.labels.forEach((raw, i) => {
      const label = cleanText(raw, { path: `/labels/${i}`, max: ANNOTATION_LIMITS.labelLength });
      if (!label.ok) return void errors.push(label.error);
      if (!label.text) return void errors.push({ path: `/labels/${i}`, code: 'text_empty', message: 'a label needs visible characters' });
      if (seen.has(labelKey(label.text))) return void errors.push({ path: `/labels/${i}`, code: 'label_repeated', message: `"${label.text}" is there already (labels ignore case)` });
      seen.add(labelKey(label.text));
      labels.push(label.text);
    });
    out.labels = labels;
  }
  if (errors.length) throw validationFailed(errors);
  return out;
}

/**
 * Annotations (PRODUCT §5): a note and labels about one contact, private to their author. The
 * annotated person never learns of them: no signal reaches them, nothing of theirs shows them.
 */
export function createAnnotationService(deps: { db: RepositoryOf<{ annotations: typeof annotationQueries; subs: typeof subscriptionQueries }>; clock: Clock }) {
  const { db, clock } = deps;

  async function contactOf(authorId: string, id: string): Promise<void> {
    const row = await db.direct.subs.find('subscriber', authorId, id);
    if (!row || row.hidden_at !== null) throw refuse('contact_not_found', 'you have no contact with this id');
  }

  return {
    async get(auth: AuthContext, contactId: string): Promise<AnnotationView> {
      await contactOf(auth.account.id, contactId);
      const row = await db.direct.annotations.find(auth.account.id, contactId);
      if (!row) throw refuse('annotation_not_found', 'you have not annotated this contact yet: PUT creates the annotation');
      return annotationView(row);
    },

    /** PUT: creates without If-Match (201), then needs it (428 without, 412 when stale). */
    async put(auth: AuthContext, contactId: string, expectedVersion: number | undefined, input: { note?: string; labels?: string[] }): Promise<{ created: boolean; annotation: AnnotationView }> {
      const authorId = auth.account.id;
      const cleaned = clean(input);
      await contactOf(authorId, contactId);
      return db.transaction(async (q, tx) => {
        await signal(tx, authorId, 'annotations.changed', { id: contactId });
        const current = await q.annotations.find(authorId, contactId);
        const now = clock.now();
        let row: AnnotationRecord | undefined;
        if (!current) {
          if (expectedVersion !== undefined) throw refuse('version_mismatch', 'there is no annotation yet: send the first PUT without If-Match');
          row = { subscription_id: contactId, author_id: authorId, note: cleaned.note ?? '', labels: JSON.stringify(cleaned.labels ?? []), version: 1, created_at: now, updated_at: now };
          await q.annotations.insert(row);
        } else {
          if (expectedVersion === undefined) throw refuse('precondition_required', 'the annotation exists: send If-Match with the ETag you last read');
          row = await q.annotations.update(authorId, contactId, expectedVersion, {
            note: cleaned.note ?? current.note,
            labels: cleaned.labels ? JSON.stringify(cleaned.labels) : current.labels,
            updated_at: now,
          });
          if (!row) throw refuse('version_mismatch', 'the annotation changed since you read it; fetch it again');
        }
        await q.annotations.setLabels(authorId, contactId, JSON.parse(row.labels) as string[]);
        return { created: !current, annotation: annotationView(row) };
      });
    },

    async remove(auth: AuthContext, contactId: string, expectedVersion: number): Promise<void> {
      const authorId = auth.account.id;
      await contactOf(authorId, contactId);
      await db.transaction(async (q, tx) => {
        await signal(tx, authorId, 'annotations.changed', { id: contactId });
        if (!(await q.annotations.remove(authorId, contactId, expectedVersion))) {
          throw (await q.annotations.find(authorId, contactId))
            ? refuse('version_mismatch', 'the annotation changed since you read it; fetch it again')
            : refuse('annotation_not_found', 'this contact has no annotation');
        }
      });
    },

    /** GET /labels: the author's labels, each with how many contacts carry it, a page at a time in the labels' order. */
    async labels(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<{ label: string; count: number }>> {
      const rows = await db.direct.annotations.labelCounts(auth.account.id, decodeCursor(cursor, stringKey), limit + 1);
      return toPage(rows, limit, (row) => ({ label: row.label, count: row.count }), (row) => encodeKeyCursor(row.label_key));
    },
  };
}

export type AnnotationService = ReturnType<typeof createAnnotationService>;
