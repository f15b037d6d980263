// Entry: the screens, and the app that picks one from the path, the session and the account's
// state. Server state comes only from the resource cache (core/cache.ts).
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import type { Me } from '../../client/src/index.js';
import { cache, useResource } from './core/cache.js';
import { accountActive, on, refreshSession, session } from './core/client.js';
import { startLive, stopLive } from './core/live.js';
import { handleLinks, navigate, path, screenFor } from './core/router.js';
import type { Screen } from './core/router.js';
import { useValue } from './core/state.js';
import { dismissOnNextAction } from './core/toast.js';
import { Failed, Skeleton } from './ui/layout.js';
import { Shell } from './ui/shell.js';
import { registerScreens, Deleted } from './screens.js';

registerScreens();

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return <Skeleton />;
}

/** Signed in: nothing is drawn until /me says whether the account is active (a deleted one has one screen). */
function SignedIn({ screen }: { screen: Screen }) {
  const me = useResource<Me>('/me');
  const status = me.data?.status;
  useEffect(() => {
    accountActive.value = status === 'active';
    if (status === 'active') startLive();
    else stopLive();
  }, [status]);
  useEffect(() => () => (stopLive(), (accountActive.value = false)), []);
  if (!me.data) {
    return (
      <Shell view="loading" title={screen.title} nav="signed-in">
        {me.error !== undefined && !me.loading ? <Failed error={me.error} /> : <Skeleton lines={4} />}
      </Shell>
    );
  }
  if (me.data.status === 'deleted') {
    return (
      <Shell view="deleted" title="Account deleted" nav="none">
        <Deleted me={me.data} />
      </Shell>
    );
  }
  const Component = screen.component;
  return (
    <Shell view={screen.view} title={screen.title} nav="signed-in">
      <Component />
    </Shell>
  );
}

function App() {
  const signedIn = useValue(session);
  const at = useValue(path);
  if (signedIn === null) return <Shell view="loading" title="VID" nav="none"><Skeleton /></Shell>;
  const screen = screenFor(at);
  // Signed in, home is the cards you follow.
  const home = signedIn ? '/contacts' : '/';
  if (!screen || (screen.signedOut && signedIn) || (!screen.open && !screen.signedOut && !signedIn)) {
    return <Shell view="loading" title="VID" nav="none"><Redirect to={home} /></Shell>;
  }
  if (screen.open || !signedIn) {
    const Component = screen.component;
    return (
      <Shell view={screen.view} title={screen.title} nav={signedIn ? 'signed-in' : 'signed-out'}>
        <Component />
      </Shell>
    );
  }
  return <SignedIn screen={screen} />;
}

// The account went (deleted elsewhere): /me says so, and the app shows the one screen it has.
on('accountGone', () => void cache.revalidate('/me').catch(() => undefined));
on('sessionEnded', () => stopLive());
handleLinks();
dismissOnNextAction();
void refreshSession();
render(<App />, document.getElementById('app')!);
