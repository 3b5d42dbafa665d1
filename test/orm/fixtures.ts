import {
  Column,
  type Context,
  CreatedAt,
  CreatedBy,
  DeletedAt,
  DeletedBy,
  DetailColumn,
  Join,
  JoinKind,
  Lazy,
  LazyList,
  NotFilterable,
  PrimaryKey,
  Relation,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
  WhereClause,
  WhereClauseParameter,
} from "tenon";

/** A company: soft delete, all six change-tracking columns, a blocking relation to its employees. */
@Table("Companies")
@Sequence("CompaniesID")
@Relation("Employees", "CompanyID", false)
export class Company {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(100)) name = "";
  @Column("Email", Type.string.orNull) email: string | null = null;
  @Column("CreditLimit", Type.float.orNull) creditLimit: number | null = null;
  @Column("Active", Type.boolean) active = true;
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string) deletedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** The same table without @DeletedAt: it still reaches soft-deleted rows (the soft-delete guard comes from the mapping, not the table). */
@Table("Companies")
@Sequence("CompaniesID")
export class CompanyRow {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Only active companies, through a constant WHERE clause parameter. */
@Table("Companies")
@Sequence("CompaniesID")
@WhereClause("Active = :active")
@WhereClauseParameter("active", true)
export class ActiveCompany {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An employee: a lazy reference to its company, private mapped fields, created/updated pairs. */
@Table("Employees")
@Sequence("EmployeesID")
export class Employee {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("FirstName", Type.string) firstName = "";
  @Column("LastName", Type.string) lastName = "";
  @Column(
    "CompanyID",
    Type.lazy(() => Company),
  )
  company = new Lazy<Company>();
  @NotFilterable @Column("Salary", Type.float.orNull) salary: number | null = null;
  @Column("Notes", Type.string.orNull) #notes: string | null = null;
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;

  /** The private notes. */
  get notes(): string | null {
    return this.#notes;
  }
  set notes(value: string | null) {
    this.#notes = value;
  }
}

/** An order: hard delete, a detail list of lines, lines deleted with it. */
@Table("Orders")
@Sequence("OrdersID")
@Relation("OrderLines", "OrderID", true)
export class Order {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Number", Type.string) number = "";
  @Column(
    "CompanyID",
    Type.lazy(() => Company),
  )
  company = new Lazy<Company>();
  @Column("Total", Type.decimal(18, 2)) total = "0.00";
  @DetailColumn("ID", "OrderID", () => OrderLine) lines = new LazyList<OrderLine>();
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A line of an order. */
@Table("OrderLines")
@Sequence("OrderLinesID")
export class OrderLine {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column(
    "OrderID",
    Type.lazy(() => Order),
  )
  order = new Lazy<Order>();
  @Column("Product", Type.string) product = "";
  @Column("Quantity", Type.int32) quantity = 1;
  @Column("Price", Type.decimal(18, 2)) price = "0.00";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A read-only view joining employees to their company, and a chained join to the company's manager. */
@Table("Employees")
@Join(JoinKind.Inner, "Companies", "CompanyID", "ID")
export class EmployeeDirectory {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("LastName", Type.string) lastName = "";
  @Column("Companies", "Name", Type.string) companyName = "";
}

/** Every column type, for round trips. */
@Table("Gadgets")
@Sequence("GadgetsID")
export class Gadget {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Big", Type.int64.orNull) big: bigint | null = null;
  @Column("Ratio", Type.float.orNull) ratio: number | null = null;
  @Column("Amount", Type.decimal(18, 4).orNull) amount: string | null = null;
  @Column("Flag", Type.boolean.orNull) flag: boolean | null = null;
  @Column("At", Type.date.orNull) at: Date | null = null;
  @Column("Data", Type.blob.orNull) data: Uint8Array | null = null;
  @Column("Label", Type.string.orNull) label: string | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Inserts a company with this name through the context (key from the sequence) and answers it. */
export async function insertCompany(context: Context, name: string): Promise<Company> {
  const company = await context.createEntity(Company);
  company.name = name;
  await context.insert(company);
  return company;
}
