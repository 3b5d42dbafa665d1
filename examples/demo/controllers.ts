import { Filter, ValidationError, type EntityClass, type Lazy } from "tenon";
import {
  Area,
  AuthorizationType,
  Get,
  HttpAuthorizationType,
  HttpChangesController,
  HttpController,
  HttpEntityController,
  HttpEntityReadController,
  HttpError,
  OpenApi,
  Post,
  Uri,
  type HttpContext,
  type HttpControllerClass,
  type HttpEntityBulkResult,
  type HttpEntityDeleted,
  type HttpEntityPage,
  type HttpSelectPage,
  type HttpEntityWriter,
} from "tenon/http";
import { findDemoUser, issueDemoToken } from "./authentication.js";
import type { DemoContext } from "./demo-context.js";
import { Company, Employee, EmployeeDirectory, Order, OrderLine } from "./entities.js";

/** POST /logon: answers a bearer token for a valid user name and password (no authentication). */
@Uri("/logon")
@AuthorizationType(HttpAuthorizationType.None)
export class LogonController extends HttpController<DemoContext> {
  /** `{"username", "password"}` → `{"token"}`, or 401. */
  @Post()
  @OpenApi({
    summary: "A bearer token for a user name and password.",
    tags: ["Authentication"],
    requestBody: {
      type: "object",
      required: ["username", "password"],
      properties: { username: { type: "string" }, password: { type: "string" } },
    },
    responseBody: { type: "object", required: ["token"], properties: { token: { type: "string" } } },
    answers: [401],
  })
  async logon(): Promise<{ token: string }> {
    const body = this.request.jsonContent as Record<string, unknown> | null;
    const user = typeof body === "object" && body !== null ? findDemoUser(body.username, body.password) : undefined;
    if (user === undefined) throw new HttpError(401, "Wrong user name or password.");
    return { token: await issueDemoToken(user) };
  }
}

/** GET /health: `{"status":"ok"}` (no authentication). */
@Uri("/health")
@AuthorizationType(HttpAuthorizationType.None)
export class HealthController extends HttpController<DemoContext> {
  /** Always ok while the server answers. */
  @Get()
  @OpenApi({
    summary: "Whether the server answers.",
    tags: ["Operations"],
    responseBody: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
  })
  health(): { status: string } {
    return { status: "ok" };
  }
}

/** GET /admin/whoami: the caller's user (area admin). */
@Uri("/admin")
export class AdminController extends HttpController<DemoContext> {
  /** The caller's `HttpUser` as JSON. */
  @Get("whoami")
  @Area("admin")
  @OpenApi({
    summary: "The caller's user.",
    tags: ["Authentication"],
    responseBody: {
      type: "object",
      required: ["username", "areas", "tenant"],
      properties: { username: { type: "string" }, areas: { type: "array", items: { type: "string" } }, tenant: { type: "string" } },
    },
  })
  whoami(): unknown {
    const user = this.request.user;
    return { username: user?.username, areas: user?.areas, tenant: user?.tenant };
  }
}

/**
 * The demo's entity routes: the generic controller's routes with the demo's areas, read for GET and
 * select, write for the others (createnew included).
 */
abstract class DemoEntityController<T extends object> extends HttpEntityController<DemoContext, T> {
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }

  @Area("read") override selectAll(): Promise<HttpEntityPage> {
    return super.selectAll();
  }
  @Area("read") override get(id: number): Promise<unknown> {
    return super.get(id);
  }
  @Area("read") override find(id: number): Promise<unknown> {
    return super.find(id);
  }
  @Area("read") override metadata(): unknown {
    return super.metadata();
  }
  @Area("read") override select(): Promise<HttpSelectPage> {
    return super.select();
  }
  @Area("write") override createNew(): Promise<unknown> {
    return super.createNew();
  }
  @Area("write") override insert(): Promise<unknown> {
    return super.insert();
  }
  @Area("write") override bulk(): Promise<HttpEntityBulkResult> {
    return super.bulk();
  }
  @Area("write") override update(): Promise<unknown> {
    return super.update();
  }
  @Area("write") override patch(id: number): Promise<unknown> {
    return super.patch(id);
  }
  @Area("write") override delete(id: number, version?: number): Promise<HttpEntityDeleted> {
    return super.delete(id, version);
  }
}

/** /companies: deleting one that still has employees answers 409 (its @Relation refuses the delete). */
export class CompanyController extends DemoEntityController<Company> {
  protected readonly entityClass: EntityClass<Company> = Company;
}

/** /employees: the company an employee names must exist (422 otherwise). */
export class EmployeeController extends DemoEntityController<Employee> {
  protected readonly entityClass: EntityClass<Employee> = Employee;

  protected override createWriter(): HttpEntityWriter<Employee> {
    const writer = super.createWriter();
    writer.onBeforeInsert = writer.onBeforeUpdate = (employee) => requireCompany(this.httpContext, employee.company);
    return writer;
  }
}

/** /orders: the writer saves the order's lines (replacing the stored ones) inside the write's transaction. */
export class OrderController extends DemoEntityController<Order> {
  protected readonly entityClass: EntityClass<Order> = Order;

  protected override createWriter(): HttpEntityWriter<Order> {
    const writer = super.createWriter();
    writer.onBeforeInsert = writer.onBeforeUpdate = (order) => requireCompany(this.httpContext, order.company);
    writer.onApplyDetails = (order) => saveOrderLines(this.httpContext, order);
    return writer;
  }
}

/** A company reference that is set must name a live company: 422 on `company` otherwise. */
async function requireCompany(context: HttpContext, company: Lazy<Company>): Promise<void> {
  if (company.id === null || (await context.tryGet(Company, company.id)) !== null) return;
  throw new ValidationError([{ property: "company", column: "CompanyID", message: `Company ${company.id} does not exist.` }]);
}

/**
 * Saves an order's lines: lines of this order are updated (unless untouched: same version and values), any
 * other line (no id, or an id that is not one of this order's lines) is inserted with a new id, and stored
 * lines the order no longer lists are deleted. A body can therefore never move or change another order's line.
 */
async function saveOrderLines(context: HttpContext, order: Order): Promise<void> {
  const lines = await order.lines.load();
  const stored = new Map(
    (await context.select(OrderLine, new Filter().addWhere("OrderID = :orderId", { orderId: order.id }))).map((line) => [line.id, line]),
  );
  const added: OrderLine[] = [];
  const changed: OrderLine[] = [];
  const keep = new Set<number>();
  for (const line of lines) {
    line.order.id = order.id;
    const before = stored.get(line.id);
    if (before === undefined) {
      line.id = 0;
      added.push(line);
    } else {
      keep.add(line.id);
      if (!sameLine(before, line)) changed.push(line);
    }
  }
  // New, changed and removed lines go in a few multi-row statements, not one round trip each (docs/crud.md).
  await context.updateAll(changed);
  await context.insertAll(added);
  await context.deleteAll([...stored.values()].filter((line) => !keep.has(line.id)));
}

/** Whether a line of the body is the stored one unchanged (same version and values): it needs no update. */
function sameLine(stored: OrderLine, line: OrderLine): boolean {
  return (
    stored.versionId === line.versionId &&
    stored.product === line.product &&
    stored.quantity === line.quantity &&
    stored.price === line.price
  );
}

/** /employee-directory: read only (the GET routes and select), every route in area read. */
@Area("read")
export class EmployeeDirectoryController extends HttpEntityReadController<DemoContext, EmployeeDirectory> {
  protected readonly entityClass: EntityClass<EmployeeDirectory> = EmployeeDirectory;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}

/** /changes: the changes of companies and orders in one stream, for a caller with the area read (docs/changes.md). */
export class ChangesController extends HttpChangesController<DemoContext> {
  protected readonly feeds: readonly HttpControllerClass<DemoContext>[] = [CompanyController, OrderController];
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}
