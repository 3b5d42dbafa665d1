import {
  AfterDelete,
  AfterInsert,
  AfterUpdate,
  BeforeDelete,
  BeforeInsert,
  BeforeUpdate,
  Column,
  type Context,
  DeleteEvent,
  DisplayName,
  Email,
  FilterBuilder,
  Greater,
  InsertEvent,
  Lazy,
  Less,
  MaxLength,
  MaxValue,
  MinLength,
  MinValue,
  PrimaryKey,
  Range,
  Regex,
  Required,
  Sequence,
  Table,
  Type,
  UpdateEvent,
  Validator,
  type ValidationErrors,
  VersionColumn,
  type EntityEvent,
} from "tenon";
import { type EngineHarness, sequenceDdl, type TestDatabase } from "./harness.js";

/** A club that members belong to (the target of a required `Lazy`). */
@Table("Clubs")
@Sequence("ClubsID")
export class Club {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Every validation rule on one entity, and a custom validator that reads the database through the context. */
@Table("Members")
@Sequence("MembersID")
export class Member {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Required() @MaxLength(10) @DisplayName("Member name") @Column("Name", Type.string) name = "";
  @MinLength(3) @Column("Nickname", Type.string.orNull) nickname: string | null = null;
  @Email() @Column("Email", Type.string.orNull) email: string | null = null;
  @Regex("[0-9]{3}") @Column("Code", Type.string.orNull) code: string | null = null;
  @Regex("^[0-9]{5}$", "Zip must be five digits.") @Column("Zip", Type.string.orNull) zip: string | null = null;
  @Required() @Column("Score", Type.int32) score = 1;
  @MaxValue(9007199254740993n) @Column("Big", Type.int64.orNull) big: bigint | null = null;
  @Greater(0) @Less(1000) @Column("Price", Type.decimal(10, 2)) price = "1.00";
  @Range(0.5, 1.5) @Column("Ratio", Type.float.orNull) ratio: number | null = null;
  @MinValue(-5) @Column("Level", Type.int32) level = 0;
  @Required("A member needs a club.")
  @Column(
    "ClubID",
    Type.lazy(() => Club),
  )
  club = new Lazy<Club>();
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;

  /** Names are unique among members: a validator that asks the database through the context. */
  @Validator
  async uniqueName(errors: ValidationErrors, context: Context): Promise<void> {
    const filter = new FilterBuilder(Member).where("name").equal(this.name).where("id").notEqual(this.id).build();
    if ((await context.selectCount(Member, filter)) > 0) errors.add("name", `The name ${this.name} is taken.`);
  }

  /** A synchronous validator comparing two fields. */
  @Validator
  nicknameDiffers(errors: ValidationErrors): void {
    if (this.nickname !== null && this.nickname === this.name) errors.add("nickname", "The nickname must differ from the name.");
  }
}

/** What the events of `Ticket` saw, in order. Reset by each test. */
export const ticketLog: string[] = [];

/** Makes the events of tickets titled `fail <where>` throw at that point. */
function failIf(ticket: Ticket, where: string): void {
  if (ticket.title === `fail ${where}`) throw new Error(`event failed at ${where}`);
}

/** The event class of all three kinds of write of `Ticket`: one instance per write. */
export class TicketEvents implements EntityEvent<Ticket> {
  static created = 0;
  readonly serial = ++TicketEvents.created;

  /** Runs before validation: fills an empty title so that `@Required` passes. */
  async before(ticket: Ticket, context: Context): Promise<void> {
    await Promise.resolve();
    ticketLog.push(`class before ${this.serial} ${context.inTransaction ? "in" : "out"}`);
    if (ticket.title === "") ticket.title = "(untitled)";
    failIf(ticket, "class before");
  }

  /** Runs after the statement: the row is visible inside the transaction. */
  async after(ticket: Ticket, context: Context): Promise<void> {
    const rows = await context.query("SELECT Title FROM Tickets WHERE ID = :id", { id: ticket.id });
    ticketLog.push(`class after ${this.serial} rows=${rows.length}`);
    failIf(ticket, "class after");
  }
}

/** An entity with every event: class-level for insert, update and delete, and every method-level marker. */
@Table("Tickets")
@Sequence("TicketsID")
@InsertEvent(TicketEvents)
@UpdateEvent(TicketEvents)
@DeleteEvent(TicketEvents)
export class Ticket {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Required() @Column("Title", Type.string) title = "";
  @Column("Status", Type.string) status = "open";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;

  @BeforeInsert
  beforeInsert(context: Context): void {
    ticketLog.push(`beforeInsert ${context.inTransaction ? "in" : "out"}`);
    failIf(this, "beforeInsert");
  }

  @AfterInsert
  async afterInsert(): Promise<void> {
    await Promise.resolve();
    ticketLog.push("afterInsert");
    failIf(this, "afterInsert");
  }

  @BeforeUpdate
  beforeUpdate(): void {
    ticketLog.push("beforeUpdate");
    failIf(this, "beforeUpdate");
  }

  @AfterUpdate
  afterUpdate(): void {
    ticketLog.push("afterUpdate");
    failIf(this, "afterUpdate");
  }

  @BeforeDelete
  beforeDelete(): void {
    ticketLog.push("beforeDelete");
    if (this.status === "locked") throw new Error("a locked ticket cannot be deleted");
  }

  @AfterDelete
  afterDelete(): void {
    ticketLog.push("afterDelete");
    if (this.status === "fail after delete") throw new Error("event failed at afterDelete");
  }
}

/** Rows for the filter builder suite. */
@Table("Items")
@Sequence("ItemsID")
export class Item {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @Column("Category", Type.string) category = "";
  @Column("Price", Type.float) price = 0;
  @Column("Qty", Type.int32) qty = 0;
  @Column("Note", Type.string.orNull) note: string | null = null;
  @Column(
    "ClubID",
    Type.lazy(() => Club),
  )
  club = new Lazy<Club>();
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Creates the tables (and sequences) of this file's entities. */
export async function createValidationSchema(harness: EngineHarness, db: TestDatabase): Promise<void> {
  const t = harness.types;
  const statements = [
    `CREATE TABLE Clubs (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Members (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, Nickname ${t.text}, Email ${t.text},
      Code ${t.text}, Zip ${t.text}, Score ${t.int32} NOT NULL, Big ${t.int64}, Price ${t.decimal(10, 2)} NOT NULL, Ratio ${t.float},
      Level ${t.int32} NOT NULL, ClubID ${t.int32}, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Tickets (ID ${t.int32} NOT NULL PRIMARY KEY, Title ${t.text} NOT NULL, Status ${t.text} NOT NULL, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Items (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, Category ${t.text} NOT NULL, Price ${t.float} NOT NULL,
      Qty ${t.int32} NOT NULL, Note ${t.text}, ClubID ${t.int32}, VersionID ${t.int32} NOT NULL)`,
  ];
  if (harness.hasSequences)
    for (const name of ["ClubsID", "MembersID", "TicketsID", "ItemsID"]) statements.push(sequenceDdl(harness, name));
  for (const sql of statements) await db.exec(sql);
}

/** The row as a record with lower-case keys (engines differ in the case of column names). */
export function lowerKeys(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key.toLowerCase(), value]));
}
