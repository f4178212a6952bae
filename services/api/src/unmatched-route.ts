import type { Context, MiddlewareHandler } from 'hono';
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

type Routes = () => readonly { method: string; path: string }[];

/** The route table as patterns, read on first use (after every route is registered). */
function routePatterns(routes: Routes): () => RoutePattern[] {
  let patterns: RoutePattern[] | undefined;
  return () =>
    (patterns ??= routes()
      // Middleware is registered under ALL; only real routes say which methods a path answers.
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({
        method: route.method,
        matches: patternOf(route.path),
        params: route.path.split('/').filter((s) => s.startsWith(':') || s === '*').length,
      })));
}

/** The methods of the most specific paths matching `path` (as the OpenAPI document lists them). */
function allowedMethods(patterns: RoutePattern[], path: string, maxParams = Number.POSITIVE_INFINITY) {
  const matching = patterns.filter((p) => p.params <= maxParams && p.matches.test(path));
  const fewest = Math.min(...matching.map((p) => p.params));
  const allowed = new Set(matching.filter((p) => p.params === fewest).map((p) => p.method));
  // Hono answers HEAD with the GET route.
  if (allowed.has('GET')) allowed.add('HEAD');
  return allowed;
}

function methodNotAllowed(c: Context, allowed: Set<string>) {
  const allow = [...allowed].sort().join(', ');
  c.header('Allow', allow);
  return c.json(
    errorBody('method_not_allowed', `${c.req.method} is not allowed here; allowed: ${allow}.`),
    405,
  );
}

/**
 * The answer for a request no route matched: 405 with `Allow` when the path is known under other
 * methods (RFC 9110 §15.5.6; clients and the contract fuzzer tell a wrong method from a wrong
 * path by it), else 404. One handler for the whole app, so every route gets this without declaring
 * anything.
 *
 * @example app.notFound(answerUnmatchedRoute(() => app.routes));
 */
export function answerUnmatchedRoute(routes: Routes) {
  const patterns = routePatterns(routes);
  return (c: Context) => {
    const allowed = allowedMethods(patterns(), c.req.path);
    // No route, or a route's own `c.notFound()` (e.g. an unknown docs asset): a plain 404.
    if (allowed.size === 0 || allowed.has(c.req.method)) {
      return c.json(errorBody('not_found', 'No such route.'), 404);
    }
    return methodNotAllowed(c, allowed);
  };
}

/**
 * A path that is a route of its own (no parameters: `/me/sessions/end-all`) is that route, never a
 * parameter's value of a wider one (`DELETE /me/sessions/:id`): a method it does not answer gets
 * 405 here, before the wider route would refuse `end-all` as an id with 422.
 */
export function refuseOtherMethodsOnFixedPaths(routes: Routes): MiddlewareHandler {
  const patterns = routePatterns(routes);
  return async (c, next) => {
    const fixed = allowedMethods(patterns(), c.req.path, 0);
    if (fixed.size > 0 && !fixed.has(c.req.method) && c.req.method !== 'OPTIONS') {
      return methodNotAllowed(c, fixed);
    }
    await next();
  };
}
