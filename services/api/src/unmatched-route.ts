import type { Context } from 'hono';
import { errorBody } from './error-handler';

interface RoutePattern {
  method: string;
  matches: RegExp;
  /** Path parameters in the pattern: `/me/sessions/end-all` is that path, not `/me/sessions/:id`. */
  params: number;
}

/** Hono's path syntax (`/workflows/:id`, `*`) as an anchored regular expression. */
function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The answer for a request no route matched: 405 with `Allow` when the path is known under other
 * methods (RFC 9110 §15.5.6; clients and the contract fuzzer tell a wrong method from a wrong
 * path by it), else 404. One handler for the whole app, so every route gets this without declaring
 * anything. The route table is read on first use, after every route is registered.
 *
 * @example app.notFound(answerUnmatchedRoute(() => app.routes));
 */
export function answerUnmatchedRoute(routes: () => readonly { method: string; path: string }[]) {
  let patterns: RoutePattern[] | undefined;
  return (c: Context) => {
    patterns ??= routes()
      // Middleware is registered under ALL; only real routes say which methods a path answers.
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({
        method: route.method,
        matches: patternOf(route.path),
        params: route.path.split('/').filter((s) => s.startsWith(':') || s === '*').length,
      }));
    const matching = patterns.filter((p) => p.matches.test(c.req.path));
    // The most specific path's methods, as the OpenAPI document lists them for this path.
    const fewest = Math.min(...matching.map((p) => p.params));
    const allowed = new Set(matching.filter((p) => p.params === fewest).map((p) => p.method));
    // Hono answers HEAD with the GET route.
    if (allowed.has('GET')) allowed.add('HEAD');
    // No route, or a route's own `c.notFound()` (e.g. an unknown docs asset): a plain 404.
    if (allowed.size === 0 || allowed.has(c.req.method)) {
      return c.json(errorBody('not_found', 'No such route.'), 404);
    }
    const allow = [...allowed].sort().join(', ');
    c.header('Allow', allow);
    return c.json(
      errorBody('method_not_allowed', `${c.req.method} is not allowed here; allowed: ${allow}.`),
      405,
    );
  };
}
