import { runningServers } from "./running-servers.js";
import { HttpServerError } from "../exchange/http-errors.js";
import { LogMessages } from "./log-messages.js";

/** Built-in header names whose values never reach a log writer. */
const BUILT_IN_HEADERS = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key"] as const;

/** Built-in query and form parameter names whose values never reach a log writer. */
const BUILT_IN_PARAMETERS = ["token", "access_token", "refresh_token", "id_token", "api_key", "key", "password", "signature"] as const;

/**
 * Folds a name for comparison. `String.prototype.toLowerCase` applies the Unicode default case mapping,
 * which does not depend on the machine locale (unlike `toLocaleLowerCase`): under a Turkish locale
 * "AUTHORIZATION" still folds to "authorization", not to a dotless "ı".
 */
function fold(name: string): string {
  return name.toLowerCase();
}

/**
 * The redaction list: one case-insensitive, locale-independent list of header and parameter
 * names whose values are logged as `<redacted>`, the name kept. The application adds its names before
 * `start()`; `add()` throws `HttpServerError` while any server runs, so that the read path needs no lock.
 */
export class HttpLogRedactedNames {
  static readonly #builtIn: readonly string[] = [...BUILT_IN_HEADERS, ...BUILT_IN_PARAMETERS];
  static #folded = new Set<string>(HttpLogRedactedNames.#builtIn.map(fold));
  static #added: string[] = [];

  private constructor() {}

  /** The built-in names: the five headers and eight parameters above. */
  static get builtInNames(): readonly string[] {
    return HttpLogRedactedNames.#builtIn;
  }

  /** Every name on the list, built-in first, as given. */
  static get names(): readonly string[] {
    return [...HttpLogRedactedNames.#builtIn, ...HttpLogRedactedNames.#added];
  }

  /** True when the value of a header or parameter called `name` is redacted (case-insensitive). */
  static isRedacted(name: string): boolean {
    return HttpLogRedactedNames.#folded.has(fold(name));
  }

  /** Adds names to the list. Throws `HttpServerError` while a server is running. */
  static add(...names: string[]): void {
    HttpLogRedactedNames.#checkStopped(names[0] ?? "");
    for (const name of names) {
      const folded = fold(name);
      if (HttpLogRedactedNames.#folded.has(folded)) continue;
      HttpLogRedactedNames.#folded.add(folded);
      HttpLogRedactedNames.#added.push(name);
    }
  }

  /** Removes names the application added (built-in names stay). Throws `HttpServerError` while a server is running. */
  static remove(...names: string[]): void {
    HttpLogRedactedNames.#checkStopped(names[0] ?? "");
    const removed = new Set(names.map(fold));
    HttpLogRedactedNames.#added = HttpLogRedactedNames.#added.filter((name) => !removed.has(fold(name)));
    HttpLogRedactedNames.#folded = new Set([...HttpLogRedactedNames.#builtIn, ...HttpLogRedactedNames.#added].map(fold));
  }

  static #checkStopped(name: string): void {
    if (runningServers.count > 0) throw new HttpServerError(LogMessages.redactedNamesLocked(name));
  }
}
