// A child process of sqlite-sequence.test.ts: inserts rows into one SQLite file while other processes do the
// same, and prints what it inserted as one JSON line. Keys come from the file's key table; some rows carry
// an id chosen ahead of the keys, as a client may choose one.
import { Column, Context, PrimaryKey, Sequence, Table, Type, UniqueViolationError } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";

@Table("Tickets")
@Sequence("TicketsID")
class Ticket {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.string) title = "";
}

const [filename, worker, count] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const database = new SqliteDatabase({ filename, busyTimeout: 20000 });
const inserted: number[] = [];
let duplicates = 0;
try {
  for (let n = 0; n < count; n++) {
    await using context = new Context(database);
    const ticket = Object.assign(new Ticket(), { title: `${worker}-${n}` });
    if (n % 10 === 9) {
      // An id just ahead of the keys handed out so far: other processes' drawn keys must step over it.
      const rows = await context.query("SELECT COALESCE(MAX(ID), 0) FROM Tickets WHERE ID < 1000000");
      ticket.id = Number(rows[0][0]) + 2;
      try {
        await context.insert(ticket);
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
        duplicates++;
        continue;
      }
    } else if (n % 2 === 0) {
      await context.transaction(async () => {
        await context.insert(ticket);
      });
    } else {
      await context.insert(ticket);
    }
    inserted.push(ticket.id);
  }
  process.stdout.write(`${JSON.stringify({ inserted, duplicates })}\n`);
} finally {
  await database.close();
}
