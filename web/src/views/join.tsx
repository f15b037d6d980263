// A new device joins with a code shown on a signed-in one: the code is checked here first (six
// digits), then the other device approves; waiting can be cancelled. This device has no session
// (and so no signal stream) yet, so it asks after its request itself until it is decided.
import { useEffect, useId, useState } from 'preact/hooks';
import { isProblem } from '../../../client/src/index.js';
import { client, refreshSession } from '../core/client.js';
import { say } from '../core/messages.js';
import type { Words } from '../core/messages.js';
import { navigate } from '../core/router.js';
import { toast } from '../core/toast.js';
import { FormError, TextField, useAction } from '../ui/form.js';
import { PageHead, Section } from '../ui/layout.js';
import { createCredential } from '../webauthn.js';

class Ended extends Error {
  constructor(readonly words: string) {
    super(words);
  }
}

const CODE = /^\d{6}$/;
/** Refusals about the code itself: said under the code box, each in its own words. */
const ABOUT_THE_CODE = new Set(['join_code_invalid', 'join_attempt_expired', 'join_already_finished', 'invalid_transition']);

function explain(error: unknown): Words | undefined {
  if (error instanceof Ended) return { message: error.words, boxes: {} };
  if ((error as { name?: string })?.name === 'AbortError') return { message: 'Stopped waiting. Nothing was signed in.', boxes: {} };
  if (isProblem(error) && ABOUT_THE_CODE.has(error.code)) return { boxes: { '/code': say(error) } };
  return undefined;
}

export default function Join() {
  const ids = { username: useId(), code: useId() };
  const [username, setUsername] = useState('');
  const [code, setCode] = useState('');
  const [keep, setKeep] = useState(false);
  const [malformed, setMalformed] = useState(false);
  const [waiting, setWaiting] = useState<AbortController | undefined>(undefined);
  const [stage, setStage] = useState('');
  useEffect(() => () => waiting?.abort(), [waiting]);

  const join = useAction(async () => {
    const controller = new AbortController();
    setWaiting(controller);
    const pause = (ms: number) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      controller.signal.addEventListener('abort', () => (clearTimeout(timer), reject(controller.signal.reason)), { once: true });
    });
    try {
      // Every join request is signed by this device's key (kept in IndexedDB, non-extractable).
      const attempt = await client.request('POST', '/auth/join/redeem', { body: { username: username.trim(), code }, auth: 'proof', signal: controller.signal });
      setStage('Waiting for your other device to approve…');
      for (;;) {
        const now = await client.request('GET', '/auth/join/attempts/{id}', { params: { id: attempt.attempt_id }, auth: 'proof', signal: controller.signal });
        if (now.status === 'approved') break;
        if (now.status === 'denied') throw new Ended('Your other device said no, so this device is not signed in.');
        if (now.status === 'expired') throw new Ended('Nobody approved it in time. Ask your other device for a new code.');
        await pause(1000);
      }
      setStage(keep ? 'Approved. Create a passkey for this device…' : 'Approved. Signing in…');
      let credential;
      if (keep) {
        const { options } = await client.request('POST', '/auth/join/register-options', { body: { attempt_id: attempt.attempt_id }, auth: 'proof' });
        credential = await createCredential(options);
      }
      const tokens = await client.request('POST', '/auth/join/finish', {
        body: { attempt_id: attempt.attempt_id, persist_device: keep, ...(credential ? { credential: credential as never } : {}) },
        auth: 'proof',
      });
      await client.useTokens(tokens);
      await refreshSession();
      navigate('/account');
      toast(keep ? 'This device is kept and has its own passkey.' : 'Signed in on this device for now.');
    } finally {
      setWaiting(undefined);
      setStage('');
    }
  }, { explain, boxes: { '/code': { name: 'code' }, '/username': { name: 'username' } } });

  const submit = (e: Event) => {
    e.preventDefault();
    const ok = CODE.test(code);
    setMalformed(!ok);
    if (ok) void join.run();
  };
  return (
    <>
      <PageHead title="Sign in on this device" lead="With a code from a device where you are signed in." />
      <Section title="Join with a code">
        <form onSubmit={submit} noValidate>
          <TextField id={ids.username} label="Username" autocomplete="username" autocapitalize="none" spellcheck={false} required maxLength={128}
            value={username} onValue={setUsername} disabled={!!waiting} error={join.box('/username')} />
          <TextField id={ids.code} label="Code from your other device" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxLength={6} required
            value={code} onValue={(v) => (setCode(v.replace(/\D/g, '')), setMalformed(false))} disabled={!!waiting}
            error={malformed ? 'A code is 6 digits.' : join.box('/code')}
            hint="On a device where you are signed in, open “Add a device” and show a code." />
          <div class="check">
            <input type="checkbox" id="keep-device" name="persist_device" checked={keep} disabled={!!waiting} onChange={(e) => setKeep((e.target as HTMLInputElement).checked)} />
            <label for="keep-device">Keep this device (makes a passkey here). Leave it off on a shared or borrowed computer.</label>
          </div>
          {waiting ? (
            <div class="waiting" role="status">
              <p>{stage || 'Sending the code…'}</p>
              <button type="button" onClick={() => waiting.abort()}>Cancel</button>
            </div>
          ) : (
            <button type="submit" class="primary">Join</button>
          )}
          <FormError action={join} />
        </form>
      </Section>
    </>
  );
}
