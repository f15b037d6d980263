// Recovery on a new device: username, recovery key (typed or read from its file) and, when the
// account has one, a code from the authenticator app; then a passkey for this device.
import { useId, useState } from 'preact/hooks';
import { client, refreshSession } from '../core/client.js';
import { navigate } from '../core/router.js';
import { Field, FormError, TextField, useAction } from '../ui/form.js';
import { PageHead, Section } from '../ui/layout.js';
import { createCredential } from '../webauthn.js';

const KEY = /[0-9A-Z]{4}(?:-[0-9A-Z]{4}){7}/i;

export default function Recover() {
  const ids = { username: useId(), key: useId(), file: useId(), code: useId() };
  const [username, setUsername] = useState('');
  const [key, setKey] = useState('');
  const [code, setCode] = useState('');
  const recover = useAction(async () => {
    const begin = await client.request('POST', '/auth/recovery/begin', {
      body: { username: username.trim(), recovery_key: key.trim(), ...(code.trim() ? { totp_code: code.trim() } : {}) },
      auth: 'none',
    });
    const credential = await createCredential(begin.options);
    const tokens = await client.request('POST', '/auth/recovery/finish', { body: { ceremony_id: begin.ceremony_id, credential: credential as never }, auth: 'proof' });
    await client.useTokens(tokens);
    await refreshSession();
    navigate('/account');
  }, { done: 'Recovered. This device has a new passkey.', boxes: { '/username': { name: 'username' }, '/recovery_key': { name: 'recovery key' }, '/totp_code': { name: 'code' } } });
  return (
    <>
      <PageHead title="Recover your account" lead="When every device with a passkey is lost." />
      <Section title="Recovery">
        <form onSubmit={(e) => (e.preventDefault(), void recover.run())}>
          <TextField id={ids.username} label="Username" autocomplete="username" autocapitalize="none" spellcheck={false} required maxLength={128}
            value={username} onValue={setUsername} error={recover.box('/username')} />
          <TextField id={ids.key} label="Recovery key" autocomplete="off" autocapitalize="characters" spellcheck={false} required maxLength={128}
            value={key} onValue={setKey} error={recover.box('/recovery_key')} hint="Like 7K2M-9QXD-…; capitals, spaces and dashes do not matter." />
          <Field id={ids.file} label="Or open the recovery key file" optional>
            {(aria) => (
              <input {...aria} type="file" name="recovery_file" accept=".txt,text/plain"
                onChange={async (e) => {
                  const text = await (e.target as HTMLInputElement).files?.[0]?.text();
                  const match = text?.match(KEY);
                  if (match) setKey(match[0]);
                }} />
            )}
          </Field>
          <TextField id={ids.code} label="Code from your authenticator app" optional inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxLength={6}
            value={code} onValue={setCode} error={recover.box('/totp_code')} hint="Only if you set one up." />
          <button type="submit" class="primary" disabled={recover.busy}>Recover and create a passkey</button>
          <FormError action={recover} />
        </form>
      </Section>
    </>
  );
}
