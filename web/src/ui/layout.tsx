// The building blocks of every screen: a page heading, grouped sections, a loading state that is
// never mistaken for "empty", an empty state that says what to do.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import type { ResourceState } from '../../../client/src/index.js';
import { isProblem, VidNetworkError } from '../../../client/src/index.js';
import { loadMessages, OFFLINE, sayNow } from '../core/sentences.js';

export function PageHead({ title, lead }: { title: string; lead?: ComponentChildren }) {
  return (
    <header class="page-head">
      <h1>{title}</h1>
      {lead ? <p class="lead">{lead}</p> : null}
    </header>
  );
}

/** A card with a heading; `id` names the section for tests and links. */
export function Section({ title, id, children, actions }: { title: string; id?: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useId();
  return (
    <section class="card" aria-labelledby={heading} id={id}>
      <div class="card-head">
        <h2 id={heading}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** Grey lines where content will be: a page that is loading, not an empty one. */
export function Skeleton({ lines = 3 }: { lines?: number }) {
  return (
    <div class="skeleton" role="status" aria-label="Loading">
      {Array.from({ length: lines }, (_, i) => <span key={i} />)}
    </div>
  );
}

/** Says there is nothing yet and what to do about it. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Under the content, when the last read failed: what is shown stays, this says why it may be old. */
export function Failed({ error }: { error: unknown }) {
  const offline = error instanceof VidNetworkError || !isProblem(error);
  const text = offline ? OFFLINE : sayNow(error);
  const [, setLoaded] = useState(false);
  // The sentence comes from the message layer, loaded the first time something fails.
  useEffect(() => {
    if (text !== undefined) return;
    let left = false;
    loadMessages().then(() => left || setLoaded(true), () => left || setLoaded(true));
    return () => {
      left = true;
    };
  }, [text]);
  return text === undefined ? null : <p class="msg error" role="alert">{text}</p>;
}

/**
 * The content of a resource once it has arrived: a skeleton before, the reason when it never
 * arrived (offline: the cache tries again by itself), the content (kept) when a later read fails.
 */
export function Loaded<T>({ state, lines, children }: { state: ResourceState<T>; lines?: number; children: (data: T) => ComponentChildren }) {
  if (state.data !== undefined) return <>{children(state.data)}</>;
  if (state.error !== undefined && !state.loading) return <Failed error={state.error} />;
  return <Skeleton lines={lines} />;
}
