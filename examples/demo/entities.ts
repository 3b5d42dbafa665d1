import {
  Aggregatable,
  BeforeInsert,
  ChangeFeed,
  BeforeUpdate,
  Column,
  CreatedAt,
  CreatedBy,
  DeletedAt,
  DeletedBy,
  DetailColumn,
  DisplayName,
  Email,
  Greater,
  Join,
  JoinKind,
  JsonIgnore,
  JsonName,
  Lazy,
  LazyList,
  MaxLength,
  MinValue,
  NotFilterable,
  Policy,
  PrimaryKey,
  Range,
  Regex,
  Relation,
  Required,
  Sequence,
  Table,
  TenantColumn,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
} from "tenon";
import { type DemoClaims, demoClaims } from "./claims.js";

/**
 * A customer company. Deleting one is a soft delete, refused while it has employees. Every demo entity belongs
 * to a tenant (`@TenantColumn`): a caller reads and writes only its own tenant's rows (docs/entities.md). Every
 * committed change goes out on its change feed (`GET /api/companies/changes`, docs/changes.md). Its policy
 * (docs/policies.md): a caller with a `region` claim (the user `sales`) reads, writes and hears of only its region's
 * companies, and may not set a credit limit above 100000.00; every other caller reaches every company.
 */
@Table("Companies")
@Sequence("CompaniesID")
@Relation("Employees", "CompanyID", false)
@ChangeFeed()
@Policy<Company, DemoClaims>(demoClaims, (caller) => ({
  rules: [
    { rows: { region: caller.claims.region }, check: { or: [{ creditLimit: null }, { creditLimit: { "<=": "100000.00" } }] } },
    { when: (user) => user.claims.region === undefined },
  ],
}))
export class Company {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(50)) tenantId = "";
  @Required() @MaxLength(100) @Column("Name", Type.varchar(100)) name = "";
  @Regex("^[A-Z]{2}$") @Column("Region", Type.varchar(2)) region = "EU";
  @Email() @Column("Email", Type.varchar(254).orNull) email: string | null = null;
  @Regex("^[A-Z]{2}[0-9A-Z]{2,12}$") @Column("VatNumber", Type.varchar(14).orNull) vatNumber: string | null = null;
  @Range(0, 1000000) @Column("CreditLimit", Type.decimal(18, 2).orNull) creditLimit: string | null = null;
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string) deletedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An employee of a company. Its `salary` is read (and written) only by callers with the area `admin`. */
@Table("Employees")
@Sequence("EmployeesID")
@Policy<Employee>({ members: { salary: { read: { areas: ["admin"] } } } })
export class Employee {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(50)) tenantId = "";
  @Required() @MaxLength(100) @Column("FirstName", Type.varchar(100)) firstName = "";
  @Required() @MaxLength(100) @DisplayName("Last name") @Column("LastName", Type.varchar(100)) lastName = "";
  @Email() @Column("Email", Type.varchar(254).orNull) email: string | null = null;
  @Required()
  @DisplayName("Company")
  @Column(
    "CompanyID",
    Type.lazy(() => Company),
  )
  company = new Lazy<Company>();
  // Measured (sum, avg, min, max) by who may read it: the policy leaves it out of everyone else's aggregates.
  @NotFilterable
  @Aggregatable({ groupBy: false, metrics: ["sum", "avg", "min", "max"] })
  @Column("Salary", Type.decimal(18, 2).orNull)
  salary: string | null = null;
  @JsonIgnore @Column("Notes", Type.string.orNull) notes: string | null = null;
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A line of an order. */
@Table("OrderLines")
@Sequence("OrderLinesID")
export class OrderLine {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(50)) tenantId = "";
  @Column(
    "OrderID",
    Type.lazy(() => Order),
  )
  order = new Lazy<Order>();
  @Required() @MaxLength(100) @Column("Product", Type.varchar(100)) product = "";
  @MinValue(1) @Column("Quantity", Type.int32) quantity = 1;
  @Greater(0) @Column("Price", Type.decimal(18, 2)) price = "0.00";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/**
 * An order of a company, with its lines. Deleting one deletes its lines. Its policy sets `createdBy` to the caller on
 * insert: no body writes it.
 */
@Table("Orders")
@Sequence("OrdersID")
@Relation("OrderLines", "OrderID", true)
@ChangeFeed()
@Policy<Order>((caller) => ({ set: { insert: { createdBy: caller.username } } }))
export class Order {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(50)) tenantId = "";
  @Required() @MaxLength(30) @Column("Number", Type.varchar(30)) number = "";
  @Column("CreatedBy", Type.varchar(100)) createdBy = "";
  @Column(
    "CompanyID",
    Type.lazy(() => Company),
  )
  company = new Lazy<Company>();
  @Column("Total", Type.decimal(18, 2)) total = "0.00";
  @DetailColumn("ID", "OrderID", () => OrderLine) lines = new LazyList<OrderLine>();
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;

  /** Computes the total from the lines before every insert and update. */
  @BeforeInsert
  @BeforeUpdate
  async computeTotal(): Promise<void> {
    let cents = 0n;
    for (const line of await this.lines.load()) cents += BigInt(line.quantity) * toCents(line.price);
    this.total = fromCents(cents);
  }
}

/**
 * Employees with their company's name: a read-only join entity; the company joined must be of the employee's tenant.
 * Its policy is the companies' on the joined company's region, so that no caller reads the name of a company it
 * cannot read.
 */
@Table("Employees")
@Join(JoinKind.Inner, "Companies", "CompanyID", "ID")
@Policy<EmployeeDirectory, DemoClaims>(demoClaims, (caller) => ({
  rules: [{ rows: { companyRegion: caller.claims.region } }, { when: (user) => user.claims.region === undefined }],
}))
export class EmployeeDirectory {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(50)) tenantId = "";
  @TenantColumn @Column("Companies", "TenantID", Type.varchar(50)) companyTenantId = "";
  @Column("FirstName", Type.string) firstName = "";
  @Column("LastName", Type.string) lastName = "";
  @Column("Email", Type.string.orNull) email: string | null = null;
  // The field is `employer`; the wire keeps the name clients know (docs/entities.md "Wire names").
  @JsonName("companyName") @Column("Companies", "Name", Type.string) employer = "";
  // Read by the policy only: the directory's answers keep their shape.
  @JsonIgnore @Column("Companies", "Region", Type.string) companyRegion = "";
}

function toCents(decimal: string): bigint {
  const [whole, fraction = ""] = decimal.replace("-", "").split(".");
  const cents = BigInt(whole || "0") * 100n + BigInt((fraction + "00").slice(0, 2));
  return decimal.startsWith("-") ? -cents : cents;
}

function fromCents(cents: bigint): string {
  const sign = cents < 0n ? "-" : "";
  const absolute = cents < 0n ? -cents : cents;
  return `${sign}${absolute / 100n}.${(absolute % 100n).toString().padStart(2, "0")}`;
}
