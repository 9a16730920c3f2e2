/**
 * A fake platform's route table: each route a method and a path pattern, tried in order; the first whose
 * method and path match answers, and a request none matches gets the platform's own not-found answer
 * (each platform words it differently, and some check credentials before they say so).
 *
 * A pattern is `METHOD /path`, the method `GET`, `POST`, … or `*` for any. In the path, `:name` at the
 * start of a segment is a parameter up to the next `/`; `:name(regex)` constrains it and may also follow
 * literal text in a segment (`act_:account(\d+)`). Any other colon is literal, as in Google's custom
 * methods (`/customers/:customer(\d+):uploadClickConversions`). Parameters are passed as sent (not
 * percent-decoded), as the path was matched. A platform that works something out before it routes (Stripe:
 * the parsed form, after its key checks) hands it to every handler as the context.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RouteParams = Record<string, string>;

export type RouteHandler<Context = undefined> = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: RouteParams,
  context: Context,
) => unknown;

/** `[pattern, handler]`: `['GET /meta/graph/:version/:pixel(\\d+)/stats', pixelStats]`. */
export type Route<Context = undefined> = readonly [pattern: string, handler: RouteHandler<Context>];

type NotFound<Context> = (req: IncomingMessage, res: ServerResponse, url: URL, context: Context) => unknown;

/** `:name`, then optionally `(regex)` (one level of inner parentheses, escapes allowed). */
const PARAM = /:([A-Za-z_]\w*)(?:\(((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*)\))?/g;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The anchored regular expression of a path pattern, its parameters as named groups. */
export function pathPattern(path: string): RegExp {
  let source = '';
  let last = 0;
  for (const match of path.matchAll(PARAM)) {
    const [text, name, constraint] = match;
    const atSegmentStart = match.index === 0 || path[match.index - 1] === '/';
    if (!atSegmentStart && constraint === undefined) continue;
    source += `${escapeRegExp(path.slice(last, match.index))}(?<${name}>${constraint ?? '[^/]+'})`;
    last = match.index + text.length;
  }
  return new RegExp(`^${source}${escapeRegExp(path.slice(last))}$`);
}

/** A platform's `handle` from its routes, tried in order, and its answer to a request none of them matches. */
export function routeTable<Context = undefined>(table: readonly Route<Context>[], notFound: NotFound<Context>) {
  const compiled = table.map(([pattern, handler]) => {
    const space = pattern.indexOf(' ');
    if (space < 1) throw new Error(`A route is "METHOD /path": ${pattern}`);
    return { method: pattern.slice(0, space), path: pathPattern(pattern.slice(space + 1)), handler };
  });
  return (req: IncomingMessage, res: ServerResponse, url: URL, context?: Context): unknown => {
    for (const route of compiled) {
      if (route.method !== '*' && route.method !== req.method) continue;
      const match = route.path.exec(url.pathname);
      if (match) return route.handler(req, res, url, { ...match.groups }, context as Context);
    }
    return notFound(req, res, url, context as Context);
  };
}
