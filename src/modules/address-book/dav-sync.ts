import type { DavPrincipal } from '../dav-tokens/service.js';
import { cardResponse, multistatus, wantsVcards } from './dav-call.js';
import type { DavAnswer } from './dav-call.js';
import { DavError } from './dav-error.js';
import type { Report } from './dav-requests.js';
import { MULTISTATUS_CLOSE, MULTISTATUS_OPEN, STATUS, statusResponse, syncTokenElement } from './multistatus.js';
import { pathOf } from './resources.js';
import { SYNC_PAGE } from './service.js';
import type { AddressBookService, AddressCard } from './service.js';
import type { SyncTokens } from './sync-token.js';

export function createDavSync(deps: { book: AddressBookService; tokens: SyncTokens }) {
  const { book, tokens } = deps;

  /**
   * DAV:sync-collection (RFC 6578 §3): with no token, every card in the book; with one, the
   * cards that changed after it (200 with their properties) and those gone (404, nothing else),
   * read from the card-change log (decision 180). Nothing changed: the same token back.
   */
  async function sync(principal: DavPrincipal, report: Extract<Report, { report: 'sync' }>): Promise<DavAnswer> {
    const account = principal.accountId;
    const vcards = wantsVcards(report.props);
    const bookPath = pathOf({ kind: 'book' }, account);
    if (report.token === '') {
      // The position is read before the cards: a change in between is in the next sync (again, harmlessly).
      const token = tokens.format(await book.currentToken(account));
      const pages = book.pages(account, vcards);
      let head: AddressCard[] | undefined;
      if (report.limit !== undefined) {
        // RFC 6578 §3.7: a first sync cannot be cut short (the token resumes after changes, not
        // after cards), so a limit it would exceed is refused; the client asks without one.
        head = [];
        for await (const page of pages) {
          head.push(...page);
          if (head.length > report.limit) throw new DavError(403, `the address book holds more than ${report.limit} cards`, '<D:number-of-matches-within-limits/>');
        }
      }
      async function* all(): AsyncIterable<string> {
        yield MULTISTATUS_OPEN;
        for await (const page of head ? [head] : pages) {
          const responses: string[] = [];
          for (const card of page) responses.push(await cardResponse(principal, card, report.props));
          yield responses.join('');
        }
        yield syncTokenElement(token) + MULTISTATUS_CLOSE;
      }
      return multistatus(all());
    }
    const position = tokens.parse(report.token);
    const changes = position === undefined ? undefined : await book.changesSince(account, position, Math.min(report.limit ?? SYNC_PAGE, SYNC_PAGE));
    // RFC 6578 §3.2: a token the server does not know; DAVx5 and others start over.
    if (!changes) throw new DavError(403, 'this sync token is not one of this address book', '<D:valid-sync-token/>');
    const cards = new Map((await book.cards(account, changes.people, vcards)).map((card) => [card.ownerId, card]));
    const responses: string[] = [];
    for (const person of changes.people) {
      const card = cards.get(person);
      responses.push(card ? await cardResponse(principal, card, report.props) : statusResponse(pathOf({ kind: 'card', person }, account), STATUS.notFound));
    }
    // RFC 6578 §3.6: cut short; the token resumes after the last change sent.
    if (changes.truncated) responses.push(statusResponse(bookPath, STATUS.insufficientStorage, '<D:number-of-matches-within-limits/>'));
    return multistatus(`${MULTISTATUS_OPEN}${responses.join('')}${syncTokenElement(tokens.format(changes.token))}${MULTISTATUS_CLOSE}`);
  }

  return sync;
}
