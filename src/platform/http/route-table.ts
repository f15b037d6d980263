import type { RouteOptions } from 'fastify';

/** What a path that no route answered for this method still is: a resource with other methods, or a too-long one. */
export interface PathLookup {
  /** The Allow value (RFC 9110 §10.2.1) when some route answers this path, OPTIONS included. */
  allow?: string;
  /** Only a route whose parameter is over the router's length limit would have matched (RFC 9110 §15.5.15). */
  tooLong: boolean;
}

export interface RouteTable {
  /** The router's limit on one path parameter (find-my-way maxParamLength). */
  readonly maxParamLength: number;
  /** Fed by an onRoute hook: every route as registered, HEAD routes Fastify adds for GET included. */
  add(route: Pick<RouteOptions, 'method' | 'url'> & { wsHandler?: unknown; websocket?: boolean }): void;
  /** Only for requests no route answered (the 404 path): a scan of the patterns, never on the hot path. */
  lookup(path: string): PathLookup;
  /** Whether GET on this path may become a WebSocket: only then is an Upgrade handed to the WebSocket server. */
  isWebSocket(path: string): boolean;
}

interface Pattern {
  regex: RegExp;
  methods: Set<string>;
}

// The order RFC 9110 §9.3 lists the methods in; OPTIONS is answered for every known path (the 404
// handler, or the CORS preflight route).
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * find-my-way's pattern syntax as a RegExp: `:name` is one path segment (or up to the next static
 * text within it), `:name(regex)` its own regex, `::` a literal colon. Wildcards (`*`) are not
 * compiled: a catch-all (the web app's GET /*) does not make a path a resource, or every path
 * would answer 405 instead of 404.
 */
function compile(url: string): RegExp | undefined {
  if (url.includes('*')) return undefined;
  let source = '';
  const token = /::|:([A-Za-z0-9_]+)(\((?:\\.|[^)])*\))?/g;
  let last = 0;
  for (let match = token.exec(url); match; match = token.exec(url)) {
    source += escape(url.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[0] === '::') source += ':';
    else if (match[2]) source += match[2];
    else source += last < url.length && url[last] !== '/' ? '([^/]+?)' : '([^/]+)';
  }
  source += escape(url.slice(last));
  return new RegExp(`^${source}$`);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Which methods a path has, for 405 and Allow (RFC 9110 §15.5.6), and which paths speak
 * WebSocket. Fastify 5 answers a known path with an unknown method as 404 and exposes no lookup by
 * concrete path, so the table keeps its own copy of the patterns; it is read only when no route
 * matched. Case-sensitive and strict about trailing slashes, as the router is by default.
 */
export function createRouteTable(maxParamLength = 100): RouteTable {
  const patterns = new Map<string, Pattern>();
  const webSockets: RegExp[] = [];

  return {
    maxParamLength,

    add(route) {
      const regex = compile(route.url);
      if (!regex) return;
      let pattern = patterns.get(route.url);
      if (!pattern) patterns.set(route.url, (pattern = { regex, methods: new Set() }));
      for (const method of [route.method].flat()) pattern.methods.add(method);
      if ((route.wsHandler || route.websocket) && [route.method].flat().includes('GET')) webSockets.push(regex);
    },

    lookup(path) {
      // The router matches the decoded path, %2F kept (RFC 3986 §2.2: a reserved character stays data).
      let target = path;
      try {
        target = decodeURI(path);
      } catch {
        // Malformed percent-encoding never gets here: the router refuses it first (invalid_url).
      }
      const methods = new Set<string>();
      let tooLong = false;
      for (const { regex, methods: own } of patterns.values()) {
        const match = regex.exec(target);
        if (!match) continue;
        if (match.slice(1).some((param) => decoded(param ?? '').length > maxParamLength)) {
          tooLong = true;
          continue;
        }
        for (const method of own) methods.add(method);
      }
      if (methods.size === 0) return { tooLong };
      methods.add('OPTIONS');
      const allow = [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(', ');
      return { allow, tooLong: false };
    },

    isWebSocket(path) {
      return webSockets.some((regex) => regex.test(path));
    },
  };
}

function rank(method: string): number {
  const index = METHOD_ORDER.indexOf(method);
  return index === -1 ? METHOD_ORDER.length : index;
}
