import { HttpServerError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";

/** The methods the router stores routes for. */
export type HttpRouterMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The routes of one address shape, by method. */
interface RouteSlot<T> {
  GET?: T;
  POST?: T;
  PUT?: T;
  PATCH?: T;
  DELETE?: T;
  readonly methods: HttpRouterMethod[];
  /**
   * The matches of a route without placeholders, one per method, made once when the route is added: such a
   * match has no arguments, so every request to it is answered the same object, with nothing allocated.
   */
  readonly matches: Partial<Record<HttpRouterMethod, HttpRouteMatch<T>>>;
}

/** A resolved route: the target and the decoded placeholder values (or the catch-all rest) in order. */
export interface HttpRouteMatch<T> {
  /** What was registered for the route. */
  readonly target: T;
  /** The placeholder segments, decoded, in their original case; for a catch-all, one string with the rest. */
  readonly args: readonly string[];
}

/** The parsed shape of a route pattern. */
interface RouteShape {
  readonly fixed: readonly string[];
  readonly placeholders: number;
  readonly catchAll: boolean;
}

const noArgs: readonly string[] = Object.freeze([]);

/** Whether the router stores routes for `method` (compared in turn: node's method names are constants, so each is one comparison). */
function isRouterMethod(method: string): boolean {
  return method === "GET" || method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE";
}

/**
 * The route table. Patterns are paths whose segments are fixed words, `?` placeholders (only
 * as the last segments) or a final `*` catch-all (zero or more segments). Resolution looks up the exact
 * address, then the parametrized routes (fewest placeholders first), then the catch-alls (longest prefix
 * first); at each step a route that does not answer the method steps aside. Every step is a hash lookup per
 * segment count, so resolution time does not grow with the number of routes.
 *
 * Fixed segments compare without case; a trailing slash and empty segments are ignored; request segments
 * are percent-decoded after the split, so `%2F` never creates a segment.
 */
export class HttpRouter<T> {
  readonly #exact = new Map<string, RouteSlot<T>>();
  /**
   * The parametrized routes by placeholder count (index 0 unused), each keyed by its fixed prefix; the list
   * is as long as the most placeholders of any route need, so its length tells that number.
   */
  readonly #parametrized: Map<string, RouteSlot<T>>[] = [];
  readonly #catchAll = new Map<string, RouteSlot<T>>();
  #size = 0;
  /**
   * The last path resolved to an exact route, and its slot: a path asked again (a health check, a client
   * polling one address) is found by one comparison, without lower-casing it, hashing it and looking it up.
   */
  #lastPath = "";
  #lastSlot: RouteSlot<T> | undefined;

  /** The most placeholders of any parametrized route (0 without one). */
  get #mostPlaceholders(): number {
    return Math.max(0, this.#parametrized.length - 1);
  }

  /** The number of registered (method, pattern) pairs. */
  get size(): number {
    return this.#size;
  }

  /**
   * Registers `target` for `method` at `pattern`. Throws `HttpServerError` for a refused shape (a fixed
   * segment after a placeholder, a misplaced `*`) and for a pattern already registered for the method;
   * `describe` names the owner of a target in that message.
   */
  add(method: HttpRouterMethod, pattern: string, target: T, describe: (target: T) => string = String): void {
    const shape = parsePattern(pattern);
    const prefix = prefixKey(shape.fixed);
    let map: Map<string, RouteSlot<T>>;
    let key: string;
    if (shape.catchAll) {
      map = this.#catchAll;
      key = prefix;
    } else if (shape.placeholders > 0) {
      for (let count = this.#parametrized.length; count <= shape.placeholders; count++) this.#parametrized.push(new Map());
      map = this.#parametrized[shape.placeholders];
      key = prefix === "" ? "/" : prefix;
    } else {
      map = this.#exact;
      key = prefix === "" ? "/" : prefix;
    }
    let slot = map.get(key);
    if (slot === undefined) {
      slot = { methods: [], matches: {} };
      map.set(key, slot);
    }
    const existing = slot[method];
    if (existing !== undefined) {
      throw new HttpServerError(HttpMessages.duplicateRoute(`${method} ${pattern}`, describe(existing), describe(target)));
    }
    slot[method] = target;
    slot.methods.push(method);
    if (map === this.#exact) slot.matches[method] = Object.freeze({ target, args: noArgs });
    this.#size++;
  }

  /**
   * The route answering `method` at `path` (a path without query string), or undefined when none does
   * (then `allowedMethods` tells 404 from 405).
   */
  resolve(method: string, path: string): HttpRouteMatch<T> | undefined {
    if (!isRouterMethod(method)) return undefined;
    const m = method as HttpRouterMethod;
    if (path === this.#lastPath) {
      const exact = this.#lastSlot?.matches[m];
      if (exact !== undefined) return exact;
    }
    const simple = simpleKey(path);
    if (simple !== undefined) {
      const slot = this.#exact.get(simple);
      const exact = slot?.matches[m];
      if (exact !== undefined) {
        this.#lastPath = path;
        this.#lastSlot = slot;
        return exact;
      }
      if (this.#mostPlaceholders === 0 && this.#catchAll.size === 0) return undefined;
      const match = this.#resolveSimple(m, path, simple);
      if (match !== undefined || this.#catchAll.size === 0) return match;
    }
    const split = splitPath(path);
    if (split === undefined) return undefined;
    const { keys, values } = split;
    if (simple === undefined) {
      const exact = this.#exact.get(keys[keys.length - 1] || "/")?.matches[m];
      if (exact !== undefined) return exact;
    }
    const count = values.length;
    if (simple === undefined) {
      const most = Math.min(this.#mostPlaceholders, count);
      for (let placeholders = 1; placeholders <= most; placeholders++) {
        const target = this.#parametrized[placeholders].get(keys[count - placeholders] || "/")?.[m];
        if (target !== undefined) return { target, args: values.slice(count - placeholders) };
      }
    }
    if (this.#catchAll.size > 0) {
      for (let length = count; length >= 0; length--) {
        const target = this.#catchAll.get(keys[length])?.[m];
        if (target !== undefined) return { target, args: [values.slice(length).join("/")] };
      }
    }
    return undefined;
  }

  /**
   * The parametrized route of a path that needs no decoding (`simple` is its lower-case key): the last n
   * segments are the values and the rest is the key, for n = 1 up to the most placeholders of any route.
   * Slashes are found in the key and in the path in step (lower-casing keeps every `/`), so the values are
   * sliced from the path in their original case with no split and no key building.
   */
  #resolveSimple(m: HttpRouterMethod, path: string, simple: string): HttpRouteMatch<T> | undefined {
    if (simple.length <= 1) return undefined;
    const parametrized = this.#parametrized;
    const most = this.#mostPlaceholders;
    const end = path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
    let keySlash = simple.length;
    let pathSlash = end;
    for (let placeholders = 1; placeholders <= most; placeholders++) {
      keySlash = slashBefore(simple, keySlash - 1);
      pathSlash = slashBefore(path, pathSlash - 1);
      const target = parametrized[placeholders].get(keySlash === 0 ? "/" : simple.slice(0, keySlash))?.[m];
      if (target !== undefined) {
        const rest = path.slice(pathSlash + 1, end);
        return { target, args: placeholders === 1 ? [rest] : rest.split("/") };
      }
      if (keySlash === 0) return undefined;
    }
    return undefined;
  }

  /** Every method that some route matching `path` answers, in GET, HEAD, POST, PUT, PATCH, DELETE order (for `Allow`). */
  allowedMethods(path: string): string[] {
    const split = splitPath(path);
    if (split === undefined) return [];
    const { keys, values } = split;
    const found = new Set<HttpRouterMethod>();
    const collect = (slot: RouteSlot<T> | undefined): void => {
      if (slot !== undefined) for (const method of slot.methods) found.add(method);
    };
    const count = values.length;
    collect(this.#exact.get(keys[count] || "/"));
    for (let placeholders = 1; placeholders <= Math.min(this.#mostPlaceholders, count); placeholders++) {
      collect(this.#parametrized[placeholders].get(keys[count - placeholders] || "/"));
    }
    for (let length = count; length >= 0; length--) collect(this.#catchAll.get(keys[length]));
    const allowed: string[] = (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).filter((method) => found.has(method));
    // Every GET route answers HEAD too, so an address that answers GET answers HEAD.
    if (found.has("GET")) allowed.splice(1, 0, "HEAD");
    return allowed;
  }
}

function parsePattern(pattern: string): RouteShape {
  const segments = pattern.split("/").filter((segment) => segment !== "");
  const fixed: string[] = [];
  let placeholders = 0;
  let catchAll = false;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === "?") {
      placeholders++;
    } else if (segment === "*") {
      if (i !== segments.length - 1) throw new HttpServerError(HttpMessages.catchAllNotLast(pattern));
      if (placeholders > 0) throw new HttpServerError(HttpMessages.catchAllAfterPlaceholder(pattern));
      catchAll = true;
    } else if (segment.includes("?") || segment.includes("*") || segment.includes("\0")) {
      throw new HttpServerError(HttpMessages.invalidSegment(pattern, segment));
    } else {
      if (placeholders > 0) throw new HttpServerError(HttpMessages.fixedSegmentAfterPlaceholder(pattern));
      fixed.push(segment.toLowerCase());
    }
  }
  return { fixed, placeholders, catchAll };
}

function prefixKey(fixed: readonly string[]): string {
  let key = "";
  for (const segment of fixed) key += "/" + segment;
  return key;
}

/**
 * The index of the last `/` of `text` at or before `from` (>= 0), or -1: `lastIndexOf("/", from)` without V8's
 * call into its runtime, which `lastIndexOf` with a position makes (some 180 instructions a call).
 */
function slashBefore(text: string, from: number): number {
  let i = from;
  while (i >= 0 && text.charCodeAt(i) !== 47) i--;
  return i;
}

/** The exact-lookup key of a path that needs no decoding, or undefined when it needs the full split. */
function simpleKey(path: string): string | undefined {
  if (path.includes("%") || path.includes("//") || path.charCodeAt(0) !== 47) return undefined;
  const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  return (end === path.length ? path : path.slice(0, end)).toLowerCase();
}

/**
 * Splits a path into decoded segment values and the lookup keys of every prefix (`keys[i]` is the key of
 * the first i segments; a decoded `/` is kept inside its segment and cannot match a fixed route).
 * Undefined for a malformed escape.
 */
function splitPath(path: string): { keys: string[]; values: string[] } | undefined {
  const values: string[] = [];
  const keys: string[] = [""];
  let key = "";
  for (const raw of path.split("/")) {
    if (raw === "") continue;
    let value = raw;
    if (raw.includes("%")) {
      try {
        value = decodeURIComponent(raw);
      } catch {
        return undefined;
      }
    }
    values.push(value);
    const lower = value.toLowerCase();
    // only a decoded segment can hold a slash
    key += `/${value === raw ? lower : lower.replaceAll("/", "\0")}`;
    keys.push(key);
  }
  return { keys, values };
}
