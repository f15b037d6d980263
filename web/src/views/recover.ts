// Recovery on a new device: username, recovery key and (if set up) an authenticator code.
import { client, explain, navigate, type View } from '../app.js';
import { field, h, message, section } from '../dom.js';
import { createCredential, isCancel } from '../webauthn.js';

export default async function recover(): Promise<View> {
  return {
    title: 'Recover your account',
    render(main) {
      const username = h('input', { name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', required: true });
      const key = h('input', { name: 'recovery_key', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', required: true });
      const file = h('input', { type: 'file', name: 'recovery_file', accept: '.txt,text/plain' });
      const totp = h('input', { name: 'totp_code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6 });
      const error = message('error');
      file.addEventListener('change', async () => {
        const text = await file.files?.[0]?.text();
        const match = text?.match(/[0-9A-Z]{4}(?:-[0-9A-Z]{4}){7}/i);
        if (match) key.value = match[0];
      });
      const submit = h('button', { type: 'submit', class: 'primary' }, 'Recover and create a passkey');
      main.append(
        h('h1', {}, 'Recover your account'),
        section('Recovery',
          h('form', {
            onsubmit: (async (e: Event) => {
              e.preventDefault();
              error.textContent = '';
              submit.disabled = true;
              try {
                const begin = await client.request('POST', '/auth/recovery/begin', {
                  body: { username: username.value.trim(), recovery_key: key.value.trim(), ...(totp.value.trim() ? { totp_code: totp.value.trim() } : {}) },
                  auth: 'none',
                });
                const credential = await createCredential(begin.options);
                const tokens = await client.request('POST', '/auth/recovery/finish', { body: { ceremony_id: begin.ceremony_id, credential: credential as never }, auth: 'proof' });
                await client.useTokens(tokens);
                await navigate('/account', 'Recovered. This device has a new passkey.');
              } catch (failure) {
                error.textContent = isCancel(failure) ? 'Passkey creation was cancelled.' : (failure as { code?: string }).code === 'recovery_refused' ? 'That did not work. Check the username, the recovery key and the code.' : explain(failure);
              } finally {
                submit.disabled = false;
              }
            }) as EventListener,
          },
            field('Username', username),
            field('Recovery key', key, 'Like 7K2M-9QXD-…; case, spaces and dashes do not matter.'),
            field('Or load the recovery key file', file),
            field('Code from your authenticator app (if you use one)', totp),
            submit),
          error),
      );
    },
  };
}
