// Sign-up (live username check) and passkey sign-in (autofill through conditional mediation);
// either one goes back to the page that sent the person here (a share link), else to Account.
import { browserSupportsWebAuthnAutofill } from '@simplewebauthn/browser';
import { client, explain, navigate, takeReturn, takeSignedOutReason, type View } from '../app.js';
import { field, h, message, section } from '../dom.js';
import { autofillAssertion, createCredential, getAssertion, isCancel } from '../webauthn.js';

export default async function welcome(): Promise<View> {
  let autofill: AbortController | undefined;
  return {
    title: 'Sign in',
    render(main) {
      main.append(h('h1', {}, 'Welcome to VID'), h('p', { class: 'lead' }, 'Your identity, with passkeys instead of passwords.'));

      // Sign-in first: the username field offers passkeys in its autofill.
      const loginName = h('input', { name: 'username', autocomplete: 'username webauthn', autocapitalize: 'none', spellcheck: 'false' });
      const loginMsg = message('error');
      loginMsg.textContent = takeSignedOutReason() ?? '';
      const signIn = async () => {
        loginMsg.textContent = '';
        try {
          await client.login({ getAssertion });
          document.body.dataset.login = 'button';
          await navigate(takeReturn('/account'), 'Signed in.');
        } catch (error) {
          if (!isCancel(error)) loginMsg.textContent = explain(error);
          else loginMsg.textContent = 'Sign-in was cancelled.';
        }
      };
      main.append(
        section(
          'Sign in',
          h('form', { onsubmit: ((e: Event) => (e.preventDefault(), void signIn())) as EventListener },
            field('Username', loginName, 'Pick your passkey from the suggestions, or use the button.'),
            h('button', { type: 'submit', class: 'primary' }, 'Sign in with a passkey'),
          ),
          loginMsg,
        ),
      );

      // Sign-up with a live availability check.
      const name = h('input', { name: 'new-username', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', required: true, 'aria-describedby': 'username-check' });
      const check = h('p', { id: 'username-check', class: 'msg', 'aria-live': 'polite' });
      const signUpMsg = message('error');
      const create = h('button', { type: 'submit', class: 'primary' }, 'Create account with a passkey');
      let timer: ReturnType<typeof setTimeout> | undefined;
      let pending: AbortController | undefined;
      name.addEventListener('input', () => {
        clearTimeout(timer);
        pending?.abort();
        const value = name.value.trim();
        check.className = 'msg';
        check.textContent = value ? 'Checking…' : '';
        if (!value) return;
        timer = setTimeout(async () => {
          const controller = (pending = new AbortController());
          try {
            const result = await client.usernames.check(value, { signal: controller.signal });
            if (controller.signal.aborted) return;
            check.className = `msg ${result.available ? 'ok' : 'error'}`;
            check.textContent = result.available ? `“${result.username}” is available.` : reasonText(result.reason);
            check.dataset.available = String(result.available);
          } catch (error) {
            if (!controller.signal.aborted) check.textContent = explain(error);
          }
        }, 250);
      });
      const signUp = async () => {
        signUpMsg.textContent = '';
        create.disabled = true;
        try {
          autofill?.abort();
          await client.register({ username: name.value.trim(), createCredential });
          await navigate(takeReturn('/account'), 'Account created. Download your recovery key under Security.');
        } catch (error) {
          signUpMsg.textContent = isCancel(error) ? 'Passkey creation was cancelled.' : explain(error);
        } finally {
          create.disabled = false;
        }
      };
      main.append(
        section(
          'Create an account',
          h('form', { onsubmit: ((e: Event) => (e.preventDefault(), void signUp())) as EventListener },
            field('Choose a username', name), check, create),
          signUpMsg,
        ),
        h('p', { class: 'links' }, 'New device? ', h('a', { href: '/join', 'data-link': true }, 'Join with a code from your other device'), ' · Lost everything? ', h('a', { href: '/recover', 'data-link': true }, 'Recover your account')),
      );
      void startAutofill();
    },
    leave() {
      autofill?.abort();
    },
  };

  async function startAutofill(): Promise<void> {
    if (!(await browserSupportsWebAuthnAutofill())) return;
    autofill = new AbortController();
    try {
      await client.login({ getAssertion: autofillAssertion, signal: autofill.signal });
      document.body.dataset.login = 'autofill';
      await navigate(takeReturn('/account'), 'Signed in.');
    } catch {
      // Cancelled (another ceremony started, the view was left) or refused: the button remains.
    }
  }
}

function reasonText(reason: string | undefined): string {
  switch (reason) {
    case 'taken': return 'That username is taken.';
    case 'reserved': return 'That username is reserved.';
    case 'confusable': return 'That username looks too much like one that is taken.';
    case 'invalid': return 'Use letters, digits, dots, dashes or underscores.';
    default: return 'That username cannot be used.';
  }
}
