/**
 * The address book's URL space (CARDDAV.md "URL layout"), by the stable account id, never the
 * username (usernames can change):
 *
 *   /dav/                                         the root: who am I (RFC 5397)
 *   /dav/principals/{account}/                    the principal (RFC 3744 §2)
 *   /dav/addressbooks/{account}/                  its address-book home set (RFC 6352 §7.1.1)
 *   /dav/addressbooks/{account}/following/        "People I follow", the one address book
 *   /dav/addressbooks/{account}/following/{person}.vcf   a card; {person} is the followed
 *                                                 person's permanent account id
 *
 * plus /dav/principals/ and /dav/addressbooks/, which hold only the caller's own. Another
 * account's path is answered as if nothing were there, whether that account exists or not.
 */
export type Resource =
  | { kind: 'root' }
  | { kind: 'principals' }
  | { kind: 'principal' }
  | { kind: 'homes' }
  | { kind: 'home' }
  | { kind: 'book' }
  | { kind: 'card'; person: string };

export const BOOK_NAME = 'following';
export const DAV_PREFIX = '/dav/';

/** A path segment as an href writes it (RFC 3986 §3.3). */
const segment = (value: string) => encodeURIComponent(value);

/** The canonical path of a resource of an account (collections end in `/`, RFC 4918 §5.2). */
export function pathOf(resource: Resource, accountId: string): string {
  const account = segment(accountId);
  switch (resource.kind) {
    case 'root':
      return DAV_PREFIX;
    case 'principals':
      return `${DAV_PREFIX}principals/`;
    case 'principal':
      return `${DAV_PREFIX}principals/${account}/`;
    case 'homes':
      return `${DAV_PREFIX}addressbooks/`;
    case 'home':
      return `${DAV_PREFIX}addressbooks/${account}/`;
    case 'book':
      return `${DAV_PREFIX}addressbooks/${account}/${BOOK_NAME}/`;
    case 'card':
      return `${DAV_PREFIX}addressbooks/${account}/${BOOK_NAME}/${segment(resource.person)}.vcf`;
  }
}

/**
 * The resource a request path names for this account, or undefined (404): another account's,
 * or nothing. A collection's trailing slash may be left out; the answer's hrefs always have it.
 */
export function resolvePath(path: string, accountId: string): Resource | undefined {
  let parts: string[];
  try {
    parts = path.split('/').filter((part, i, all) => part !== '' || (i > 0 && i < all.length - 1)).map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
  if (parts[0] !== 'dav' || parts.includes('')) return undefined;
  const [, area, account, book, card, ...rest] = parts;
  if (rest.length) return undefined;
  if (area === undefined) return { kind: 'root' };
  if (area !== 'principals' && area !== 'addressbooks') return undefined;
  if (account === undefined) return { kind: area === 'principals' ? 'principals' : 'homes' };
  if (account !== accountId) return undefined;
  if (area === 'principals') return book === undefined ? { kind: 'principal' } : undefined;
  if (book === undefined) return { kind: 'home' };
  if (book !== BOOK_NAME) return undefined;
  if (card === undefined) return { kind: 'book' };
  return card.endsWith('.vcf') && card.length > 4 ? { kind: 'card', person: card.slice(0, -4) } : undefined;
}

/**
 * The resource an href in a request body names (RFC 4918 §8.3: an absolute path or a full URI;
 * clients write both), or undefined.
 */
export function resolveHref(value: string, accountId: string): Resource | undefined {
  let path: string;
  try {
    path = new URL(value.trim(), 'http://href.invalid').pathname;
  } catch {
    return undefined;
  }
  return resolvePath(path, accountId);
}

export const isCollection = (resource: Resource) => resource.kind !== 'card';
