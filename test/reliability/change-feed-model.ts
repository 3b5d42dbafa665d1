// The model of the change feed's proof, shared by its application (change-feed-app.ts) and its suite.
import {
  ChangeFeed,
  Column,
  type Database,
  PrimaryKey,
  Sequence,
  Table,
  TenantColumn,
  Type,
  VersionColumn,
  type WebhookSubscription,
} from "tenon";

/** An item of a tenant, with a change feed. */
@Table("ProofItems")
@Sequence("ProofItemsID")
@ChangeFeed()
export class ProofItem {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Name", Type.varchar(80)) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** The webhook subscriptions of the proof, from the environment. */
export function proofSubscriptions(env: NodeJS.ProcessEnv): WebhookSubscription[] {
  const secret = env.HOOK_SECRET ?? "";
  return [
    // Survives a receiver that is down for minutes: about 200 s of attempts before a dead letter.
    { name: "steady", url: env.HOOK_STEADY_URL ?? "", secret, maxAttempts: 100, initialDelayMs: 100, maxDelayMs: 2_000, concurrency: 8 },
    {
      name: "failing",
      url: env.HOOK_FAILING_URL ?? "",
      secret,
      tenant: "beta",
      maxAttempts: 3,
      initialDelayMs: 20,
      maxDelayMs: 100,
      concurrency: 8,
    },
  ];
}

/** Opens the database the environment names. */
export async function openProofDatabase(env: NodeJS.ProcessEnv): Promise<Database> {
  const url = env.DATABASE_URL ?? "";
  if (url.startsWith("postgres")) {
    const { PostgresDatabase } = await import("tenon/postgres");
    return new PostgresDatabase({ connectionString: url, poolSize: 20 });
  }
  if (url.startsWith("mariadb")) {
    const { MariaDbDatabase } = await import("tenon/mariadb");
    return new MariaDbDatabase({ connectionString: url, poolSize: 20 });
  }
  const { SqliteDatabase } = await import("tenon/sqlite");
  return new SqliteDatabase({ filename: env.DEMO_DB_FILE ?? "" });
}
