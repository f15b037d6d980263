// Share: a link (and its QR code) that lets someone subscribe to one of your profiles. Pick the
// profile, how long the link works, how often, and whether you approve each person; then show
// the code or send the link. Your links are listed with their uses and can be shown again or
// revoked. The lists come from the resource cache (share_links.changed and profiles.changed keep
// them current); what is being typed in the form stays while they change.
import { useEffect, useId, useState } from 'preact/hooks';
import type { Profile, ShareLink } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client } from '../core/client.js';
import { toast } from '../core/toast.js';
import { Field, FormError, useAction } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { Qr } from '../ui/qr.js';
import { ago, day } from '../ui/words.js';
import { PROFILES } from './profiles.js';

export const SHARE_LINKS = '/share-links?limit=200';
const MAX_USES = 100_000;
const EXPIRIES: [string, number | undefined][] = [['Never', undefined], ['In 1 day', 1], ['In 7 days', 7], ['In 30 days', 30]];

const usesText = (link: ShareLink): string =>
  link.max_uses === null
    ? `Used ${link.uses} ${link.uses === 1 ? 'time' : 'times'} · no limit`
    : `Used ${link.uses} of ${link.max_uses} ${link.max_uses === 1 ? 'time' : 'times'}`;

const expiryText = (link: ShareLink): string =>
  link.expires_at === null ? 'Never expires' : link.state === 'expired' ? `Expired ${day(link.expires_at)}` : `Works until ${day(link.expires_at)}`;

const approvalText = (link: ShareLink): string => (link.auto_approve ? 'Approved automatically' : 'You approve each person');

const STATE: Record<ShareLink['state'], string> = { active: 'Active', expired: 'Expired', used_up: 'Used up' };

function NewLink({ profiles, onCreated }: { profiles: Profile[]; onCreated: (id: string) => void }) {
  const [profileId, setProfileId] = useState('');
  const [days, setDays] = useState('');
  const [maxUses, setMaxUses] = useState('');
  const [auto, setAuto] = useState(false);
  const [label, setLabel] = useState('');
  const base = useId();
  // The chosen profile, or the first while none is chosen (or the chosen one went).
  const chosen = profiles.find((p) => p.id === profileId)?.id ?? profiles[0]?.id ?? '';
  const create = useAction(async () => {
    const uses = maxUses.trim() ? Number(maxUses) : undefined;
    const link = await client.shareLinks.create({
      profile_id: chosen,
      auto_approve: auto,
      ...(label.trim() ? { label: label.trim() } : {}),
      ...(Number(days) ? { expires_at: new Date(Date.now() + Number(days) * 86_400_000).toISOString() } : {}),
      ...(uses ? { max_uses: uses } : {}),
    });
    onCreated(link.id);
  }, { done: 'Share link created.', boxes: { '/max_uses': { name: 'number of uses' }, '/label': { name: 'where you hand it out' } } });
  const usesError = maxUses.trim() && !(/^\d+$/.test(maxUses.trim()) && Number(maxUses) >= 1 && Number(maxUses) <= MAX_USES)
    ? `Enter a whole number from 1 to ${MAX_USES}, or leave it empty for no limit.`
    : create.box('/max_uses');
  return (
    <form id="share-form" onSubmit={(event) => (event.preventDefault(), usesError ? undefined : void create.run())}>
      <div class="form-grid">
        <Field label="Profile" id="share-profile" hint="They get the card of this profile, and only that. They never see its name.">
          {(aria) => (
            <select {...aria} name="profile_id" required value={chosen} onChange={(e) => setProfileId((e.target as HTMLSelectElement).value)}>
              {profiles.map((p) => <option key={p.id} value={p.id}>{p.name}{p.public ? ' (public card)' : ''}</option>)}
            </select>
          )}
        </Field>
        <Field label="Where you hand it out" optional id={`${base}-label`} hint="Only you see this, beside each request that comes through the link." error={create.box('/label')}>
          {(aria) => (
            <input {...aria} name="label" type="text" maxLength={64} placeholder="For example: Conference badge" autocomplete="off"
              value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
          )}
        </Field>
        <Field label="Link expires" id={`${base}-expiry`}>
          {(aria) => (
            <select {...aria} name="expires" value={days} onChange={(e) => setDays((e.target as HTMLSelectElement).value)}>
              {EXPIRIES.map(([label, n]) => <option key={label} value={n ?? ''}>{label}</option>)}
            </select>
          )}
        </Field>
        <Field label="Max uses" optional id={`${base}-uses`} hint="Empty: as many people as you like." error={usesError}>
          {(aria) => (
            <input {...aria} name="max_uses" type="text" inputMode="numeric" pattern="[0-9]*" maxLength={6} placeholder="No limit" autocomplete="off"
              value={maxUses} onInput={(e) => setMaxUses((e.target as HTMLInputElement).value)} />
          )}
        </Field>
      </div>
      <div class="check">
        <input type="checkbox" id={`${base}-auto`} name="auto_approve" checked={auto} onChange={(e) => setAuto((e.target as HTMLInputElement).checked)} />
        <label for={`${base}-auto`}>
          Approve automatically
          <span class="hint block">Whoever opens the link sees your card at once. Leave it off to approve each person under People.</span>
        </label>
      </div>
      <div class="actions"><button type="submit" class="primary" id="create-link" disabled={create.busy}>Create link</button></div>
      <FormError action={create} />
    </form>
  );
}

function QrPanel({ link, profileName, onDone }: { link: ShareLink; profileName: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const [copyFailed, setCopyFailed] = useState(false);
  useEffect(() => {
    document.getElementById('share-qr')?.scrollIntoView({ block: 'start' });
    document.getElementById('copy-link')?.focus({ preventScroll: true });
  }, [link.id]);
  const copy = async () => {
    setCopyFailed(false);
    try {
      await navigator.clipboard.writeText(link.url);
      setCopied(true);
      toast('Link copied.');
      setTimeout(() => setCopied(false), 2_000);
    } catch {
      const url = document.getElementById('share-url');
      if (url) getSelection()?.selectAllChildren(url);
      setCopyFailed(true);
    }
  };
  return (
    <section class="card share-qr" id="share-qr" aria-labelledby="share-qr-title" data-share-link={link.id}>
      <h2 id="share-qr-title">Your “{profileName}” card</h2>
      <p class="hint">Let them scan this with their phone’s camera, or send them the link. They see your card, never the name “{profileName}”.</p>
      <Qr url={link.url} label={`QR code of the link to your “${profileName}” card`} />
      <p class="share-url" id="share-url">{link.url}</p>
      <div class="copy-row">
        <button type="button" class="primary" id="copy-link" onClick={() => void copy()}>{copied ? 'Copied' : 'Copy link'}</button>
        {typeof navigator.share === 'function'
          ? <button type="button" id="native-share" onClick={() => void navigator.share({ title: 'My card', url: link.url }).catch(() => undefined)}>Share…</button>
          : null}
      </div>
      {copyFailed ? <p class="msg error" role="alert">This browser did not allow copying: the link is selected, copy it from the keyboard or menu.</p> : null}
      <p class="item-meta">{approvalText(link)} · {usesText(link)} · {expiryText(link)}</p>
      <button type="button" class="subtle" id="hide-qr" onClick={onDone}>Done</button>
    </section>
  );
}

function LinkItem({ link, name, shown, onShow }: { link: ShareLink; name: string; shown: boolean; onShow: (id: string | undefined) => void }) {
  const created = ago(link.created_at);
  const revoke = useAction(async () => {
    await client.shareLinks.revoke(link.id);
    if (shown) onShow(undefined);
  }, { done: 'Link revoked. People who already follow you through it keep their access.' });
  return (
    <li data-share-link={link.id} data-state={link.state} class={shown ? 'current' : undefined}>
      <div class="item-main">
        <strong>“{name}”</strong>{link.label ? <> · {link.label}</> : null} {link.state === 'active' ? null : <span class="badge muted">{STATE[link.state]}</span>}
        <div class="item-meta">{approvalText(link)} · {usesText(link)}</div>
        <div class="item-meta">{expiryText(link)} · created {created}</div>
        <FormError action={revoke} />
      </div>
      <div class="actions">
        {link.state !== 'active'
          ? null
          : shown
            ? <button type="button" aria-label={`Hide QR of the “${name}” link created ${created}`} onClick={() => onShow(undefined)}>Hide QR</button>
            : <button type="button" aria-label={`Show QR of the “${name}” link created ${created}`} onClick={() => onShow(link.id)}>Show QR</button>}
        <button type="button" class="danger" disabled={revoke.busy} aria-label={`Revoke the “${name}” link created ${created}`} onClick={() => void revoke.run()}>Revoke</button>
      </div>
    </li>
  );
}

const LEAD = 'A share link lets someone follow one of your profiles: they scan its QR code or open the link, and your card stays current on their side.';

export default function Share() {
  const profiles = useResource<ListPage<Profile>>(PROFILES);
  const links = useResource<ListPage<ShareLink>>(SHARE_LINKS);
  const [shownId, setShownId] = useState<string | undefined>(() => new URLSearchParams(location.search).get('link') ?? undefined);
  const show = (id: string | undefined) => {
    setShownId(id);
    history.replaceState(null, '', id ? `/share?link=${encodeURIComponent(id)}` : '/share');
  };
  if (!profiles.data) {
    return (
      <>
        <PageHead title="Share" lead={LEAD} />
        <Loaded state={profiles} lines={4}>{() => null}</Loaded>
      </>
    );
  }
  if (!profiles.data.data.length) {
    return (
      <>
        <PageHead title="Share" lead={LEAD} />
        <section class="card empty-state" id="share-empty">
          <h2>Create a profile first</h2>
          <p>A link shares the card of one profile, for example “Work” with your work phone and e-mail. Make one and choose what it shows; then come back here.</p>
          <a class="button primary" href="/profiles" data-link>Go to Profiles</a>
        </section>
      </>
    );
  }
  const names = new Map(profiles.data.data.map((p) => [p.id, p.name]));
  // Newest first: the one just made is on top.
  const all = [...(links.data?.data ?? [])].reverse();
  const shown = all.find((l) => l.id === shownId && l.state === 'active');
  return (
    <>
      <PageHead title="Share" lead={LEAD} />
      <div class={`share-workspace${shown ? ' showing' : ''}`}>
        {shown ? <QrPanel key={shown.id} link={shown} profileName={names.get(shown.profile_id) ?? 'deleted'} onDone={() => show(undefined)} /> : null}
        <div class="share-main">
          <Section title="New share link">
            <NewLink profiles={profiles.data.data} onCreated={show} />
          </Section>
          <Section title="Your links">
            {links.data === undefined
              ? <Loaded state={links}>{() => null}</Loaded>
              : all.length
                ? (
                  <ul class="items" id="share-links">
                    {all.map((link) => <LinkItem key={link.id} link={link} name={names.get(link.profile_id) ?? 'Deleted profile'} shown={link.id === shownId} onShow={show} />)}
                  </ul>
                )
                : <Empty>No links yet. Create one above: you can show its QR code again at any time.</Empty>}
          </Section>
        </div>
      </div>
    </>
  );
}
