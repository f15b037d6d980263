// The web app's boxes take exactly what the server accepts (web/src/core/limits.ts): a longer
// maxlength would let the server refuse, a shorter one would cut names silently.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIMITS } from '../../web/src/core/limits.js';
import { FIELD_LIMITS } from '../../src/modules/fields/limits.js';
import { MePatchBody } from '../../src/modules/me/schemas.js';
import { DAV_TOKEN_LIMITS } from '../../src/modules/dav-tokens/schemas.js';
import { RenameBody, TotpEnrollBody } from '../../src/modules/methods/schemas.js';

const maxLength = (schema: unknown): number | undefined => {
  const s = schema as { maxLength?: number; anyOf?: unknown[] };
  return s.maxLength ?? s.anyOf?.map(maxLength).find((n) => n !== undefined);
};

describe('web: box lengths are the server’s', () => {
  it('display name, passkey name, authenticator name, field label', () => {
    assert.equal(LIMITS.displayName, maxLength(MePatchBody.properties.display_name));
    assert.equal(LIMITS.passkeyName, maxLength(RenameBody.properties.name));
    assert.equal(LIMITS.totpName, maxLength(TotpEnrollBody.properties.name));
    assert.equal(LIMITS.fieldLabel, FIELD_LIMITS.maxLabelLength);
    assert.equal(LIMITS.davTokenLabel, DAV_TOKEN_LIMITS.labelLength);
    assert.equal(LIMITS.davTokens, DAV_TOKEN_LIMITS.perAccount);
  });
});
