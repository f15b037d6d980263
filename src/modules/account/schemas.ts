import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import type { ExportSection } from '../../platform/account-data.js';
import { IsoDateTime } from '../../platform/http/schemas.js';

export const AccountDeletionSchema = Type.Object(
  {
    status: Type.Literal('deleted'),
    deleted_at: IsoDateTime,
    purge_at: IsoDateTime,
    schema_version: Type.Literal(1),
  },
  { $id: 'AccountDeletion', title: 'AccountDeletion', additionalProperties: false, description: 'Until purge_at, sign in and POST /account/undelete restore everything' },
);

export const DeletionTermsSchema = Type.Object(
  {
    grace_days: Type.Integer({ minimum: 1, description: 'Days a deleted account can be restored before it is erased (ACCOUNT_GRACE_DAYS)' }),
    username_hold_days: Type.Integer({ minimum: 0, description: 'Days the username stays reserved after the erasure, so nobody can pose as the person (USERNAME_HOLD_DAYS)' }),
    schema_version: Type.Literal(1),
  },
  { $id: 'DeletionTerms', title: 'DeletionTerms', additionalProperties: false, description: 'What deleting the account means on this server, to say before asking' },
);

const LeftOutSchema = Type.Object(
  {
    table: Type.String(),
    columns: Type.Optional(Type.Array(Type.String(), { description: 'Only these columns; the rest of the table is in the file' })),
    reason: Type.String(),
  },
  { title: 'LeftOut', additionalProperties: false },
);

/** The export document's schema, from the sections the modules declared (one member each). */
export function accountExportSchema(sections: readonly ExportSection[]): TSchema {
  const members: Record<string, TSchema> = {
    schema_version: Type.Literal(1),
    exported_at: IsoDateTime,
    left_out: Type.Array(LeftOutSchema, { description: 'What the server holds about you that the file leaves out, and why' }),
  };
  for (const section of sections) {
    members[section.name] = section.kind === 'list' ? Type.Array(section.item, { description: section.description }) : section.item;
  }
  return Type.Object(members, { title: 'AccountExport', additionalProperties: false, description: 'Everything VID stores about your account (PRODUCT §8)' });
}
