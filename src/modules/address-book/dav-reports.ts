import type { DavPrincipal } from '../dav-tokens/service.js';
import { cardResponse, multistatus, wantsVcards } from './dav-call.js';
import type { DavAnswer, DavCall } from './dav-call.js';
import { DavError } from './dav-error.js';
import { readReport } from './dav-requests.js';
import type { Report } from './dav-requests.js';
import { createDavSync } from './dav-sync.js';
import { MULTISTATUS_CLOSE, MULTISTATUS_OPEN, STATUS, statusResponse } from './multistatus.js';
import { pathOf, resolveHref } from './resources.js';
import type { Resource } from './resources.js';
import type { AddressBookService } from './service.js';
import type { SyncTokens } from './sync-token.js';
import { matchesFilter } from './vcard-parts.js';

/** REPORT on the book: addressbook-multiget and addressbook-query (RFC 6352 §8.7, §8.6) here, sync-collection (RFC 6578 §3) in dav-sync.ts. */
export function createDavReports(deps: { book: AddressBookService; tokens: SyncTokens }) {
  const { book } = deps;
  const sync = createDavSync(deps);

  /** C:addressbook-multiget (RFC 6352 §8.7): each href answered as the client wrote it, in its order. */
  async function multiget(principal: DavPrincipal, report: Extract<Report, { report: 'multiget' }>): Promise<DavAnswer> {
    const people = new Map<string, string>();
    for (const requested of report.hrefs) {
      const resource = resolveHref(requested, principal.accountId);
      if (resource?.kind === 'card') people.set(requested, resource.person);
    }
    const cards = new Map((await book.cards(principal.accountId, [...new Set(people.values())], wantsVcards(report.props))).map((card) => [card.ownerId, card]));
    const responses: string[] = [];
    for (const requested of new Set(report.hrefs)) {
      const card = cards.get(people.get(requested) ?? '');
      responses.push(card ? await cardResponse(principal, card, report.props, requested) : statusResponse(requested, STATUS.notFound));
    }
    return multistatus(`${MULTISTATUS_OPEN}${responses.join('')}${MULTISTATUS_CLOSE}`);
  }

  /** C:addressbook-query (RFC 6352 §8.6): every card, or those the filter matches, up to the client's limit. */
  async function query(principal: DavPrincipal, report: Extract<Report, { report: 'query' }>): Promise<DavAnswer> {
    const filter = report.filter;
    const pages = book.pages(principal.accountId, filter !== undefined || wantsVcards(report.props));
    const props = report.props;
    async function* matching(): AsyncIterable<string> {
      yield MULTISTATUS_OPEN;
      let sent = 0;
      for await (const page of pages) {
        const responses: string[] = [];
        for (const card of page) {
          if (filter && !matchesFilter(card.vcard!, filter)) continue;
          if (report.limit !== undefined && sent === report.limit) {
            // RFC 6352 §8.6.1: truncated by the client's limit, said with a 507 for the book.
            yield `${responses.join('')}${statusResponse(pathOf({ kind: 'book' }, principal.accountId), STATUS.insufficientStorage, '<D:number-of-matches-within-limits/>')}${MULTISTATUS_CLOSE}`;
            return;
          }
          // The vCard was read for the filter; it is sent only when asked for.
          responses.push(await cardResponse(principal, wantsVcards(props) ? card : { ...card, vcard: undefined }, props));
          sent++;
        }
        yield responses.join('');
      }
      yield MULTISTATUS_CLOSE;
    }
    return multistatus(matching());
  }

  async function report(call: DavCall, resource: Resource): Promise<DavAnswer> {
    const parsed = readReport(call.body);
    // Every report is the book's (its DAV:supported-report-set); none is served elsewhere.
    if (resource.kind !== 'book') throw new DavError(403, `the ${parsed.report} report is served on the address book itself`, '<D:supported-report/>');
    if (parsed.report === 'multiget') return multiget(call.principal, parsed);
    if (parsed.report === 'sync') {
      // RFC 6578 §3.2 asks Depth 0; Thunderbird sends 1, which means the same here.
      if ((call.depth ?? '0').trim().toLowerCase() === 'infinity') throw new DavError(400, 'a sync-collection report takes Depth 0');
      return sync(call.principal, parsed);
    }
    return query(call.principal, parsed);
  }

  return report;
}
