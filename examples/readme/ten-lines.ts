// The example of README.md ("Ten lines"), compiled with the project so that the README stays true.
import { Column, PrimaryKey, Sequence, Table, Type, VersionColumn, Required } from "tenon";
import { HttpContext, HttpEntityController, HttpServer } from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";

@Table("Companies")
@Sequence("CompaniesID")
class Company {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Required() @Column("Name", Type.varchar(100)) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

const database = new SqliteDatabase({ filename: ":memory:" });
class AppContext {
  readonly orm = new HttpContext(database);
  [Symbol.asyncDispose]() {
    return this.orm.dispose();
  }
}
class Companies extends HttpEntityController<AppContext, Company> {
  protected readonly entityClass = Company;
  protected get httpContext() {
    return this.context.orm;
  }
}

const server = new HttpServer(AppContext);
server.baseUri = "/api";
server.port = 8080;
server.allowAnonymous = true; // or server.registerAuthentication(MyBearerAuthentication)
server.registerController(Companies, "/companies");
/** Starts the example server: GET/POST/PUT/DELETE /api/companies, /api/companies/select, ... */
export async function main(): Promise<void> {
  await server.start();
}
