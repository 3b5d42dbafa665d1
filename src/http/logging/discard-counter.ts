import { HttpLogDiscarded } from "./http-log-records.js";
import { OTHER_HOST } from "./log-messages.js";

/** Length of a host key, in characters. */
export const HOST_KEY_LENGTH = 64;

/** Distinct host keys counted before the rest go to `<other>`. */
export const MAX_COUNTED_HOSTS = 64;

const NOT_KEY_CHARACTERS = /[^a-z0-9.\-:_]/g;

/**
 * The discard counter key of a Host: lower-cased, truncated to 64 characters and
 * stripped of everything outside `a-z 0-9 . - : _`, in that order. No Host, or nothing left, is `<other>`.
 */
export function hostKey(host: string): string {
  const key = host.toLowerCase().slice(0, HOST_KEY_LENGTH).replace(NOT_KEY_CHARACTERS, "");
  return key === "" ? OTHER_HOST : key;
}

/**
 * Counts the entries that one full queue rejected, per host key, between two reports. At most 64 distinct
 * hosts are counted; later ones accumulate under `<other>`, so a caller choosing Host values cannot grow it.
 * @internal
 */
export class DiscardCounter {
  #counts = new Map<string, number>();
  #hosts = 0;

  /** True when nothing was counted since the last `take()`. */
  get isEmpty(): boolean {
    return this.#counts.size === 0;
  }

  /** Counts one rejected entry of `host` (the raw Host, '' when absent). */
  count(host: string): void {
    let key = hostKey(host);
    const current = this.#counts.get(key);
    if (current !== undefined) {
      this.#counts.set(key, current + 1);
      return;
    }
    if (key !== OTHER_HOST) {
      if (this.#hosts >= MAX_COUNTED_HOSTS) key = OTHER_HOST;
      else this.#hosts++;
    }
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** The counts since the last call, one record per host, and a fresh start. */
  take(): HttpLogDiscarded[] {
    const time = Date.now();
    const records = [...this.#counts].map(([host, count]) => new HttpLogDiscarded(host, count, time));
    this.#counts = new Map();
    this.#hosts = 0;
    return records;
  }
}
