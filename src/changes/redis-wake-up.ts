import type { Database } from "../engines/database.js";
import { ChangeHub } from "./change-hub.js";
import { onChangesAnnounced } from "./change-signal.js";

/** The part of a Redis client that publishes: node-redis's `publish` (v4 or later). */
export interface RedisPublishClient {
  /** Publishes `message` on `channel`. */
  publish(channel: string, message: string): Promise<unknown>;
}

/**
 * The part of a Redis client that listens: node-redis's `subscribe` and `unsubscribe` (a connection of its own,
 * `client.duplicate()`, since a subscribed connection runs no other command on RESP2).
 */
export interface RedisSubscribeClient {
  /** Calls `listener` with each message published on `channel`. */
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  /** Stops calling `listener`. */
  unsubscribe(channel: string, listener?: (message: string, channel: string) => unknown): Promise<unknown>;
}

/** The clients and channel of `useRedisChangeWakeUp`. */
export interface RedisChangeWakeUpOptions {
  /** A connected client that publishes after each commit of change records in this process. */
  readonly publisher: RedisPublishClient;
  /** A connected client of its own that the process's change hub subscribes with. */
  readonly subscriber: RedisSubscribeClient;
  /** The channel (default `tenon:changes`); every process of the application uses the same. */
  readonly channel?: string;
}

/**
 * Wakes the change hubs of every process through Redis pub/sub, for engines without notifications of their own
 * (SQLite, MariaDB, Galera): each commit of change records in this process publishes on the channel, and this
 * process's `ChangeHub` of `database` reads the log when a message arrives, polling only every 2 seconds as a
 * safety net. A message carries no data (the hub reads the records from the database), so a lost one only makes
 * the records arrive at the next poll. Call it in every process before the hub starts (before the server does);
 * answers how to stop publishing. The application connects the clients and closes them after the server stopped.
 */
export function useRedisChangeWakeUp(database: Database, options: RedisChangeWakeUpOptions): () => void {
  const channel = options.channel ?? "tenon:changes";
  let publishing = false;
  let again = false;
  const publish = (): void => {
    if (publishing) {
      again = true;
      return;
    }
    publishing = true;
    // One message in flight at a time: the commits made meanwhile are told by the next one.
    void options.publisher
      .publish(channel, "1")
      .catch(() => undefined)
      .finally(() => {
        publishing = false;
        if (again) {
          again = false;
          publish();
        }
      });
  };
  const stopPublishing = onChangesAnnounced(database, publish);
  ChangeHub.of(database).addWakeUpSource(async (wake) => {
    const listener = (): void => wake();
    await options.subscriber.subscribe(channel, listener);
    return async () => {
      await options.subscriber.unsubscribe(channel, listener);
    };
  });
  return stopPublishing;
}
