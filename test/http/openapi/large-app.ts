// A large application for the OpenAPI document's size checks and benchmark (bench/openapi-document.mjs):
// `entities` entity classes, each referring to the one before it, each served by a generic controller with
// its ten routes, so 500 entities make 5,000 routes.
import { Column, Email, Lazy, MaxLength, PrimaryKey, Range, Required, Sequence, Table, Type, VersionColumn } from "tenon";
import { type HttpContext, HttpEntityController, HttpServer } from "tenon/http";

/** The context class of the large application (never built: the document needs no request). */
export class LargeAppContext {}

/** One entity class of the application, named `Entity<n>`, referring to `previous` (the first to itself). */
function entityClass(n: number, previous: (new () => object) | undefined): new () => object {
  @Table(`Table${n}`)
  @Sequence(`Table${n}ID`)
  class Entity {
    @PrimaryKey @Column("ID", Type.int32) id = 0;
    @Required() @MaxLength(100) @Column("Name", Type.varchar(100)) name = "";
    @Email() @Column("Email", Type.varchar(254).orNull) email: string | null = null;
    @Range(0, 1000000) @Column("Amount", Type.decimal(18, 2).orNull) amount: string | null = null;
    @Column("Day", Type.date.orNull) day: Date | null = null;
    @Column("Active", Type.boolean) active = true;
    @Column(
      "PreviousID",
      Type.lazy((): (new () => object) => previous ?? Entity),
    )
    previous = new Lazy<object>();
    @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
  }
  Object.defineProperty(Entity, "name", { value: `Entity${n}` });
  return Entity;
}

/** A server with `entities` entities and their generic controllers (ten routes each), not started. */
export function largeApp(entities: number): HttpServer<LargeAppContext> {
  const server = new HttpServer(LargeAppContext);
  server.allowAnonymous = true;
  let previous: (new () => object) | undefined;
  for (let n = 1; n <= entities; n++) {
    const entity = entityClass(n, previous);
    class Controller extends HttpEntityController<LargeAppContext, object> {
      protected readonly entityClass = entity;
      protected get httpContext(): HttpContext {
        throw new Error("The large application only describes its routes.");
      }
    }
    Object.defineProperty(Controller, "name", { value: `Entity${n}Controller` });
    server.registerController(Controller, `/entity${n}`);
    previous = entity;
  }
  return server;
}
