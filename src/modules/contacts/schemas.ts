import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { IsoDateTime, PageQuery, ref } from '../../platform/http/schemas.js';
import { CardSchema } from '../profiles/schemas.js';
import { ANNOTATION_LIMITS } from './annotations.js';
import { CONTACT_LIMITS } from './subscriptions.js';

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const Id = Type.String({ minLength: 1, maxLength: 64 });
/** A person, with their region: a bare username means this region's, `alice` of region `eu` is `alice@eu` anywhere else (PRODUCT §10). */
export const Region = Type.String({ pattern: '^[a-z]{2,8}$', description: 'The region the person lives in (eu, us). A person of another region than this deployment\'s is followed, and shown, as username@region', examples: ['eu'] });
const Person = Type.Object({ username: Type.String(), display_name: Nullable(Type.String()), region: Region }, { additionalProperties: false });
const Status = Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('denied'), Type.Literal('revoked'), Type.Literal('ended')]);

export const SubscriptionSchema = Type.Object(
  {
    id: Type.String({ examples: ['sub_Rw4cLA3qD9mX0kVb2yJt8n'] }),
    status: Status,
    subscriber: Person,
    profile_id: Nullable(Type.String({ description: 'The profile the subscriber sees (null while pending or after a denial)' })),
    message: Nullable(Type.String({ description: 'What the subscriber wrote with the request' })),
    via_share_link: Nullable(
      Type.Object(
        {
          id: Type.String(),
          label: Nullable(Type.String({ description: 'Your label for the link, if you gave it one' })),
        },
        { additionalProperties: false },
      ),
      { description: 'The share link the request came through; null for a request by username' },
    ),
    suggested_profile_id: Nullable(Type.String({ description: 'The profile of the link the request came through: preselect it when approving. null for a request by username' })),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
    version: Type.Integer(),
    schema_version: Type.Literal(1),
  },
  { $id: 'Subscription', title: 'Subscription', additionalProperties: false, description: 'A subscription to you, as you (the owner) see it' },
);

export const ContactSchema = Type.Object(
  {
    id: Type.String({ description: 'The same id as the owner\'s subscription' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('revoked'), Type.Literal('ended'), Type.Literal('unavailable')], {
      description:
        'pending: waiting for the owner, who may never answer (a request they declined reads pending too: refusals are silent, and an unanswered request ends after 30 days); unavailable: the owner\'s account is deleted (it may come back)',
    }),
    owner: Person,
    message: Nullable(Type.String()),
    labels: Type.Array(Type.String(), { description: 'Your private labels (GET/PUT /contacts/{id}/annotation)' }),
    card_updated_at: Nullable(IsoDateTime, { description: 'When the card you see last changed; null unless active' }),
    not_current_since: Type.Optional(Type.String({ format: 'date-time', description: 'Only on a contact in another region that has not been heard from for more than 10 minutes: when it last was. The card you see is the last copy received and may not be current; it catches up when the region is back' })),
    card: Type.Optional(Nullable(ref(CardSchema), {
      description: 'Only on GET /contacts?include=card: the card GET /contacts/{id}/card answers now, the same for the same viewer; null where that answer is a refusal (not active, the account deleted or unavailable)',
    })),
    card_etag: Type.Optional(Nullable(Type.String({ description: 'Only with include=card: the strong ETag GET /contacts/{id}/card sends with that card, for a later If-None-Match' }))),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
    version: Type.Integer(),
    schema_version: Type.Literal(1),
  },
  { $id: 'Contact', title: 'Contact', additionalProperties: false, description: 'Someone you subscribe to, as you see it: never which of their profiles you see' },
);

export const AnnotationSchema = Type.Object(
  {
    contact_id: Type.String(),
    note: Type.String({ maxLength: ANNOTATION_LIMITS.noteLength }),
    labels: Type.Array(Type.String({ maxLength: ANNOTATION_LIMITS.labelLength }), { maxItems: ANNOTATION_LIMITS.labels }),
    updated_at: IsoDateTime,
    version: Type.Integer(),
    schema_version: Type.Literal(1),
  },
  { $id: 'Annotation', title: 'Annotation', additionalProperties: false, description: 'Your private note and labels about a contact; they never learn of it' },
);

export const SubscribeBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 128, description: 'Their username; someone in another region as username@region (alice@eu)' }),
    message: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: `At most ${CONTACT_LIMITS.messageLength} characters, shown to the owner with the request` }))),
  },
  { additionalProperties: false },
);
export const ProfileBody = Type.Object({ profile_id: Id }, { additionalProperties: false });
export const BlockBody = Type.Object({ block: Type.Optional(Type.Boolean({ default: false, description: 'They cannot ask again until you unblock them' })) }, { additionalProperties: false });
export const AnnotationBody = Type.Object(
  {
    note: Type.Optional(Type.String({ maxLength: 20000, description: `At most ${ANNOTATION_LIMITS.noteLength} characters` })),
    labels: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 100, description: `At most ${ANNOTATION_LIMITS.labels}, each 1-${ANNOTATION_LIMITS.labelLength} characters, unique ignoring case` })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export const SubscriptionsQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(Status) }, { additionalProperties: false });
export const ContactsQuery = Type.Object(
  {
    ...PageQuery.properties,
    status: Type.Optional(Status),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only contacts you gave this label (ignoring case)' })),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Only contacts whose name, username, your labels or a value their card shows you hold every word of it, ignoring case and accents ("zoe" finds "Zoë")' })),
    sort: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('given_name'), Type.Literal('family_name'), Type.Literal('recently_changed')], {
      description: 'created (default): oldest first. given_name, family_name: by the name their card shows you (without a name field, their display name whole). recently_changed: the card that changed last first, contacts without a card last',
    })),
    include: Type.Optional(Type.Literal('card', { description: 'card: each contact with the card GET /contacts/{id}/card shows you (and its ETag), so a list needs no read per contact' })),
  },
  { additionalProperties: false },
);
export const BlockSchema = Type.Object(
  { username: Type.String(), display_name: Nullable(Type.String()), region: Region, blocked_at: IsoDateTime },
  { title: 'Block', additionalProperties: false },
);
export const LabelCount = Type.Object({ label: Type.String(), count: Type.Integer() }, { title: 'LabelCount', additionalProperties: false });
