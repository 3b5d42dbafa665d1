import { type EngineHarness, sequenceDdl, type TestDatabase } from "./harness.js";

/** Creates the tables (and, where the engine has them, the sequences) of the fixtures in fixtures.ts. */
export async function createSchema(harness: EngineHarness, db: TestDatabase): Promise<void> {
  const t = harness.types;
  const statements = [
    `CREATE TABLE Companies (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, Email ${t.text}, CreditLimit ${t.float},
      Active ${t.boolean} NOT NULL, CreatedAt ${t.timestamp}, CreatedBy ${t.text}, UpdatedAt ${t.timestamp}, UpdatedBy ${t.text},
      DeletedAt ${t.timestamp}, DeletedBy ${t.text}, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Employees (ID ${t.int32} NOT NULL PRIMARY KEY, FirstName ${t.text} NOT NULL, LastName ${t.text} NOT NULL,
      CompanyID ${t.int32}, Salary ${t.float}, Notes ${t.text}, CreatedAt ${t.timestamp}, CreatedBy ${t.text},
      UpdatedAt ${t.timestamp}, UpdatedBy ${t.text}, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Orders (ID ${t.int32} NOT NULL PRIMARY KEY, Number ${t.text} NOT NULL, CompanyID ${t.int32},
      Total ${t.decimal(18, 2)} NOT NULL, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE OrderLines (ID ${t.int32} NOT NULL PRIMARY KEY, OrderID ${t.int32} NOT NULL, Product ${t.text} NOT NULL,
      Quantity ${t.int32} NOT NULL, Price ${t.decimal(18, 2)} NOT NULL, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Gadgets (ID ${t.int32} NOT NULL PRIMARY KEY, Big ${t.int64}, Ratio ${t.float}, Amount ${t.decimal(18, 4)},
      Flag ${t.boolean}, At ${t.timestamp}, Data ${t.blob}, Label ${t.text}, VersionID ${t.int32} NOT NULL)`,
  ];
  if (harness.hasSequences) {
    for (const name of ["CompaniesID", "EmployeesID", "OrdersID", "OrderLinesID", "GadgetsID"]) statements.push(sequenceDdl(harness, name));
  }
  for (const sql of statements) await db.exec(sql);
}
