// Sign in (passkeys offered in the username box's autofill, or the button) and sign up with a
// live username check that says the one reason a name cannot be had.
import { browserSupportsWebAuthnAutofill } from '@simplewebauthn/browser';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { UsernameCheckResult } from '../../../client/src/index.js';
import { client, endedBecause, refreshSession } from '../core/client.js';
import { LOCKED } from '../core/sentences.js';
import { navigate, takeReturn } from '../core/router.js';
import { usernameWords } from '../core/username-words.js';
import { toast } from '../core/toast.js';
import { FormError, TextField, useAction } from '../ui/form.js';
import { PageHead, Section } from '../ui/layout.js';
import { autofillAssertion, createCredential, getAssertion } from '../webauthn.js';

async function signedIn(how: 'autofill' | 'button' | 'signup'): Promise<void> {
  if (how !== 'signup') document.body.dataset.login = how;
  await refreshSession();
  // A new account starts with its own details; a person coming back, with the cards they follow.
  navigate(takeReturn(how === 'signup' ? '/account' : '/contacts'));
}

/** The username check as the person types: one request at a time, the last one wins. */
function useUsernameCheck(name: string): { result?: UsernameCheckResult; checking: boolean; failed: boolean } {
  const [state, setState] = useState<{ result?: UsernameCheckResult; checking: boolean; failed: boolean }>({ checking: false, failed: false });
  useEffect(() => {
    const value = name.trim();
    if (!value) return setState({ checking: false, failed: false });
    setState((s) => ({ ...s, checking: true, failed: false }));
    const controller = new AbortController();
    const timer = setTimeout(() => {
      client.usernames.check(value, { signal: controller.signal })
        .then((result) => setState({ result, checking: false, failed: false }))
        .catch(() => controller.signal.aborted || setState({ checking: false, failed: true }));
    }, 250);
    return () => (clearTimeout(timer), controller.abort());
  }, [name]);
  return state;
}

function SignIn({ onAutofill }: { onAutofill: (controller: AbortController | undefined) => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [note] = useState(() => {
    const reason = endedBecause.value?.code === 'account_locked' ? LOCKED : undefined;
    endedBecause.value = undefined;
    return reason;
  });
  const signIn = useAction(async () => {
    await client.login({ getAssertion });
    await signedIn('button');
  });
  // The username box offers passkeys in its autofill (conditional mediation) as the page opens.
  useEffect(() => {
    let controller: AbortController | undefined;
    void browserSupportsWebAuthnAutofill().then(async (supported) => {
      if (!supported) return;
      controller = new AbortController();
      onAutofill(controller);
      try {
        await client.login({ getAssertion: autofillAssertion, signal: controller.signal });
        await signedIn('autofill');
        toast('Signed in.');
      } catch {
        // Cancelled (another ceremony started, the page was left) or refused: the button remains.
      }
    });
    return () => controller?.abort();
  }, []);
  return (
    <Section title="Sign in">
      {note ? <p class="notice" role="alert">{note}</p> : null}
      <form onSubmit={(e) => (e.preventDefault(), void signIn.run())}>
        <TextField id={id} label="Username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck={false}
          value={name} onValue={setName} hint="Pick your passkey from the suggestions, or use the button." />
        <button type="submit" class="primary" disabled={signIn.busy}>Sign in with a passkey</button>
        <FormError action={signIn} />
      </form>
    </Section>
  );
}

function SignUp({ stopAutofill }: { stopAutofill: () => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const check = useUsernameCheck(name);
  const create = useAction(async () => {
    stopAutofill();
    await client.register({ username: name.trim(), createCredential });
    await signedIn('signup');
  }, { done: 'Welcome to VID. Keep your recovery key: you find it under Security.', boxes: { '/username': { name: 'username', maxLength: 32 } } });
  const { result } = check;
  const said = !name.trim() ? '' : check.checking ? 'Checking…' : check.failed ? 'Could not check the name now.' : result ? usernameWords(result) : '';
  const tone = result && !check.checking ? (result.available ? 'ok' : 'error') : '';
  return (
    <Section title="Create an account">
      <form onSubmit={(e) => (e.preventDefault(), void create.run())}>
        <div class="field">
          <label for={id}>Choose a username</label>
          <input id={id} name="new-username" autocomplete="off" autocapitalize="none" spellcheck={false} required
            aria-describedby={`${id}-check`} aria-invalid={tone === 'error' ? 'true' : undefined} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <p id={`${id}-check`} class={`msg ${tone}`} aria-live="polite" data-available={result && !check.checking ? String(result.available) : undefined}>
            {create.box('/username') ?? said}
          </p>
        </div>
        <button type="submit" class="primary" disabled={create.busy}>Create account with a passkey</button>
        <FormError action={create} />
      </form>
    </Section>
  );
}

export default function Welcome() {
  const autofill = useRef<AbortController | undefined>(undefined);
  // Sent here to sign up or in (a share link's buttons): that box has the focus.
  useEffect(() => {
    const name = location.hash === '#sign-up' ? 'new-username' : location.hash === '#sign-in' ? 'username' : undefined;
    const box = name && document.querySelector<HTMLInputElement>(`main input[name="${name}"]`);
    if (box) {
      box.scrollIntoView({ block: 'center' });
      box.focus({ preventScroll: true });
    }
  }, []);
  return (
    <>
      <PageHead title="Welcome to VID" lead="Your identity and your cards, with passkeys instead of passwords." />
      <SignIn onAutofill={(controller) => (autofill.current = controller)} />
      <SignUp stopAutofill={() => autofill.current?.abort()} />
      <p class="links">New device? <a href="/join" data-link>Join with a code from your other device</a> · Lost every device? <a href="/recover" data-link>Recover your account</a></p>
    </>
  );
}
