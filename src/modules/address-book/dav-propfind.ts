import type { DavPrincipal } from '../dav-tokens/service.js';
import { multistatus, wantsVcards } from './dav-call.js';
import type { DavAnswer, DavCall } from './dav-call.js';
import { DavError } from './dav-error.js';
import { readPropfind } from './dav-requests.js';
import { MULTISTATUS_CLOSE, MULTISTATUS_OPEN, answer, propResponse } from './multistatus.js';
import { cardProperties, collectionProperties } from './properties.js';
import type { PropertyContext } from './properties.js';
import { pathOf } from './resources.js';
import type { Resource } from './resources.js';
import type { AddressBookService } from './service.js';
import type { SyncTokens } from './sync-token.js';

/** Depth (RFC 4918 §10.2) of a PROPFIND: 0 or 1. Infinity is refused (§9.1); none is taken as 1, as sabre/dav does, since no client here means a whole tree. */
function propfindDepth(header: string | undefined): 0 | 1 {
  const depth = (header ?? '1').trim().toLowerCase();
  if (depth === '0') return 0;
  if (depth === '1') return 1;
  if (depth === 'infinity') throw new DavError(403, 'Depth: infinity is not served; use 0 or 1', '<D:propfind-finite-depth/>');
  throw new DavError(400, 'Depth is 0, 1 or infinity');
}

/** The members a collection lists at Depth 1 (the book's cards come page by page). */
function membersOf(resource: Resource): Resource[] {
  switch (resource.kind) {
    case 'root':
      return [{ kind: 'principals' }, { kind: 'homes' }];
    case 'principals':
      return [{ kind: 'principal' }];
    case 'homes':
      return [{ kind: 'home' }];
    case 'home':
      return [{ kind: 'book' }];
    default:
      return [];
  }
}

/** PROPFIND (RFC 4918 §9.1): a resource's properties, and at Depth 1 its members' (the book's cards page by page). */
export function createDavPropfind(deps: { book: AddressBookService; tokens: SyncTokens }) {
  const { book, tokens } = deps;

  function contextOf(principal: DavPrincipal): PropertyContext {
    let token: Promise<string> | undefined;
    return {
      accountId: principal.accountId,
      username: principal.username,
      token: () => (token ??= book.currentToken(principal.accountId).then(tokens.format)),
    };
  }

  async function propfind(call: DavCall, resource: Resource): Promise<DavAnswer> {
    const depth = propfindDepth(call.depth);
    const props = readPropfind(call.body);
    const { principal } = call;
    const path = (r: Resource) => pathOf(r, principal.accountId);
    if (resource.kind === 'card') {
      const [card] = await book.cards(principal.accountId, [resource.person], wantsVcards(props));
      if (!card) throw new DavError(404, 'no such card in this address book');
      return multistatus(`${MULTISTATUS_OPEN}${propResponse(path(resource), await answer(props, cardProperties(card)))}${MULTISTATUS_CLOSE}`);
    }
    const ctx = contextOf(principal);
    // The resource itself before anything is sent, so a failure is still a status of its own.
    // PROPFIND / (a client given only the host name): the root's answer, under the href asked.
    const first = propResponse(call.path === '/' ? '/' : path(resource), await answer(props, collectionProperties(resource, ctx)));
    async function* rest(): AsyncIterable<string> {
      yield MULTISTATUS_OPEN + first;
      if (depth === 1) {
        for (const member of membersOf(resource)) yield propResponse(path(member), await answer(props, collectionProperties(member, ctx)));
        if (resource.kind === 'book') {
          for await (const page of book.pages(principal.accountId, wantsVcards(props))) {
            const responses: string[] = [];
            for (const card of page) responses.push(propResponse(path({ kind: 'card', person: card.ownerId }), await answer(props, cardProperties(card))));
            yield responses.join('');
          }
        }
      }
      yield MULTISTATUS_CLOSE;
    }
    return multistatus(rest());
  }

  return propfind;
}
