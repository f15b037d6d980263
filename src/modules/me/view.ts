import type { AccountRecord } from '../../platform/store/store.js';

/** The identity as GET /me shows it (PRODUCT §2). */
export interface MeView {
  id: string;
  username: string;
  display_name: string | null;
  locale: string | null;
  default_country: string | null;
  region: string;
  created_at: string;
  version: number;
  schema_version: 1;
}

export function meView(account: AccountRecord): MeView {
  return {
    id: account.id,
    username: account.username,
    display_name: account.display_name,
    locale: account.locale,
    default_country: account.default_country,
    region: account.region,
    created_at: new Date(account.created_at).toISOString(),
    version: account.version,
    schema_version: 1,
  };
}
