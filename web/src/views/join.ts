// The new device: username + code from the trusted device, wait for approval, finish.
import { client, explain, navigate, type View } from '../app.js';
import { field, h, message, section } from '../dom.js';
import { createCredential, isCancel } from '../webauthn.js';

export default async function join(): Promise<View> {
  let stopped = false;
  return {
    title: 'Join with a code',
    render(main) {
      const username = h('input', { name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', required: true });
      const code = h('input', { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6, required: true });
      const keep = h('input', { type: 'checkbox', name: 'persist_device', id: 'keep-device' });
      const status = message('info');
      const error = message('error');
      const submit = h('button', { type: 'submit', class: 'primary' }, 'Join');
      const form = h('form', {
        onsubmit: (async (e: Event) => {
          e.preventDefault();
          error.textContent = '';
          submit.disabled = true;
          try {
            await run(username.value.trim(), code.value.trim(), keep.checked, status);
          } catch (failure) {
            error.textContent = isCancel(failure) ? 'Passkey creation was cancelled. Start again.' : joinError(failure);
            status.textContent = '';
          } finally {
            submit.disabled = false;
          }
        }) as EventListener,
      },
        field('Username', username),
        field('Code from your other device', code, 'On a device where you are signed in, open “Add a device” and show a code.'),
        h('div', { class: 'check' }, keep, h('label', { for: 'keep-device' }, 'Keep this device (creates a passkey here). Leave unchecked on a shared or borrowed computer.')),
        submit,
      );
      main.append(h('h1', {}, 'Sign in on this device'), section('Join with a code', form, status, error));
    },
    leave() {
      stopped = true;
    },
  };

  async function run(username: string, code: string, persist: boolean, status: HTMLElement): Promise<void> {
    // Every join request is signed by this device's key (kept in IndexedDB, non-extractable).
    const attempt = await client.request('POST', '/auth/join/redeem', { body: { username, code }, auth: 'proof' });
    status.textContent = 'Waiting for approval on your other device…';
    for (;;) {
      if (stopped) return;
      const now = await client.request('GET', '/auth/join/attempts/{id}', { params: { id: attempt.attempt_id }, auth: 'proof' });
      if (now.status === 'approved') break;
      if (now.status === 'denied') throw new Error('The request was declined on your other device.');
      if (now.status === 'expired') throw new Error('This took too long. Start again.');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    status.textContent = persist ? 'Approved. Create a passkey for this device…' : 'Approved. Signing in…';
    let credential;
    if (persist) {
      const { options } = await client.request('POST', '/auth/join/register-options', { body: { attempt_id: attempt.attempt_id }, auth: 'proof' });
      credential = await createCredential(options);
    }
    const tokens = await client.request('POST', '/auth/join/finish', {
      body: { attempt_id: attempt.attempt_id, persist_device: persist, ...(credential ? { credential: credential as never } : {}) },
      auth: 'proof',
    });
    await client.useTokens(tokens);
    await navigate('/account', persist ? 'This device is kept and has its own passkey.' : 'Signed in on this device for now.');
  }
}

function joinError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'join_code_invalid') return "That code didn't work. Ask your other device for a new one.";
  if (code === 'too_many_attempts') return 'Too many tries. Wait a while and try again.';
  return explain(error);
}
