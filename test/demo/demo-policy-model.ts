// The demo's policies (docs/policies.md) written again, independently of Tenon, as the oracle of the policy suites:
// which rows and members each demo user may read and write, and what a write of each member must answer. The
// suites compare every answer of the demo with what this model says.

/** A demo user as the model knows it. */
export interface ModelUser {
  readonly name: string;
  readonly areas: readonly string[];
  readonly tenant: string;
  /** The `region` claim, when the user has one. */
  readonly region?: string;
}

/** The demo's users. */
export const modelUsers: readonly ModelUser[] = [
  { name: "guest", areas: ["read"], tenant: "north" },
  { name: "editor", areas: ["read", "write"], tenant: "north" },
  { name: "admin", areas: ["read", "write", "admin"], tenant: "north" },
  { name: "sales", areas: ["read", "write"], tenant: "north", region: "EU" },
  { name: "rival", areas: ["read", "write"], tenant: "south" },
];

/** The demo's entities with routes: their base path and table. */
export type ModelEntity = "companies" | "employees" | "orders" | "employee-directory";

/** Every entity the matrix goes over. */
export const modelEntities: readonly ModelEntity[] = ["companies", "employees", "orders", "employee-directory"];

/** The members of each entity as the widest caller (admin) reads them, with the ones no caller ever reads. */
export const modelMembers: Readonly<Record<ModelEntity, readonly string[]>> = {
  companies: [
    "id",
    "name",
    "region",
    "email",
    "vatNumber",
    "creditLimit",
    "createdAt",
    "createdBy",
    "updatedAt",
    "updatedBy",
    "deletedAt",
    "deletedBy",
    "versionId",
    "tenantId",
  ],
  employees: [
    "id",
    "firstName",
    "lastName",
    "email",
    "companyId",
    "salary",
    "notes",
    "createdAt",
    "createdBy",
    "updatedAt",
    "updatedBy",
    "versionId",
    "tenantId",
  ],
  orders: ["id", "number", "createdBy", "companyId", "total", "versionId", "tenantId"],
  "employee-directory": ["id", "firstName", "lastName", "email", "companyName", "companyRegion", "tenantId", "companyTenantId"],
};

/** Whether the user holds an area. */
export function holds(user: ModelUser, area: string): boolean {
  return user.areas.includes(area);
}

/** Whether a member is in the user's answers about the entity. */
export function readable(user: ModelUser, entity: ModelEntity, member: string): boolean {
  if (member === "tenantId" || member === "companyTenantId" || member === "notes" || member === "companyRegion") return false;
  if (entity === "employees" && member === "salary") return holds(user, "admin");
  return true;
}

/** Whether a member may be named in the user's filters and orders (read on every row, not @NotFilterable, not a blob). */
export function filterable(user: ModelUser, entity: ModelEntity, member: string): boolean {
  if (entity === "employees" && member === "salary") return false;
  return readable(user, entity, member);
}

/** The rows the user may read: the SQL condition on the entity's table (aliased as `t`; the directory's company as `c`). */
export function visibleRows(user: ModelUser, entity: ModelEntity): string {
  const region = user.region === undefined ? "" : ` AND ${entity === "companies" ? "t" : "c"}.Region = '${user.region}'`;
  switch (entity) {
    case "companies":
      return `t.TenantID = '${user.tenant}' AND t.DeletedAt IS NULL${region}`;
    case "employee-directory":
      return `t.TenantID = '${user.tenant}' AND c.TenantID = '${user.tenant}'${region}`;
    default:
      return `t.TenantID = '${user.tenant}'`;
  }
}

/** The SQL that lists the ids of the rows the user may read. */
export function visibleIdsSql(user: ModelUser, entity: ModelEntity): string {
  const table = entity === "companies" ? "Companies" : entity === "orders" ? "Orders" : "Employees";
  const join = entity === "employee-directory" ? " JOIN Companies c ON c.ID = t.CompanyID" : "";
  return `SELECT t.ID AS id FROM ${table} t${join} WHERE ${visibleRows(user, entity)} ORDER BY t.ID`;
}

/** What a write of a member with a new value answers, and whether the new value is then stored. */
export type WriteOutcome = "stored" | "ignored" | "refused";

/**
 * The outcome of writing `member` of a row the user may read and write (a value the validation accepts): refused
 * (422 naming it) where the policy forbids the member or the value, ignored where JSON never reads it (the
 * change-tracking and tenant columns, `notes`), stored otherwise.
 */
export function writeOutcome(user: ModelUser, entity: ModelEntity, member: string): WriteOutcome {
  if (["tenantId", "createdAt", "updatedAt", "updatedBy", "deletedAt", "deletedBy"].includes(member)) return "ignored";
  if (member === "createdBy") return entity === "orders" ? "refused" : "ignored";
  if (member === "notes") return "ignored";
  if (entity === "employees" && member === "salary") return holds(user, "admin") ? "stored" : "refused";
  if (entity === "companies" && user.region !== undefined && (member === "region" || member === "creditLimit")) return "refused";
  return "stored";
}

/** The members a write test sets, with a new value the demo's validation accepts (`{n}` becomes a number). */
export const modelWrites: Readonly<Record<"companies" | "employees" | "orders", Readonly<Record<string, unknown>>>> = {
  companies: {
    name: "Matrix {n}",
    region: "US",
    email: "matrix{n}@example.com",
    vatNumber: "NL{n}",
    creditLimit: "150000.00",
    createdBy: "mallory",
    updatedBy: "mallory",
    tenantId: "elsewhere",
  },
  employees: {
    firstName: "Matrix",
    lastName: "Row {n}",
    email: "matrix{n}@example.com",
    salary: "99999.00",
    notes: "a note",
    createdBy: "mallory",
    tenantId: "elsewhere",
  },
  orders: { number: "MX-{n}", createdBy: "mallory", tenantId: "elsewhere" },
};
