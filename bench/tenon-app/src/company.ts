import {
  ChangeFeed,
  ClaimType,
  type ClaimsOf,
  Column,
  CreatedAt,
  CreatedBy,
  DeletedAt,
  DeletedBy,
  declareClaims,
  Email,
  MaxLength,
  Policy,
  PrimaryKey,
  Range,
  Regex,
  Required,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
} from "tenon";

/** The demo's Company on the bench's table: validation, all six change-tracking columns, soft delete. */
@Table("Companies")
@Sequence("companies_seq")
export class Company {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Required() @MaxLength(100) @Column("Name", Type.varchar(100)) name = "";
  @Email() @Column("Email", Type.varchar(200).orNull) email: string | null = null;
  @Regex("^[A-Z]{2}[0-9A-Z]{2,12}$") @Column("VatNumber", Type.varchar(20).orNull) vatNumber: string | null = null;
  @Range(0, 1000000) @Column("CreditLimit", Type.float.orNull) creditLimit: number | null = null;
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string) deletedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** What the bench's caller carries: the owner whose companies it reaches. */
export const benchClaims = declareClaims({ owner: ClaimType.string });

/**
 * The same Company under a policy (BENCH_POLICY=1, docs/policies.md): a caller with the area `bench` reaches the
 * companies its `owner` claim created, may not set a credit limit above 100000, and writes `email` by its area. The
 * bench's caller passes every rule, so the answers are those of `Company`: the figure is the policy's own cost.
 */
@Policy<PolicyCompany, ClaimsOf<typeof benchClaims>>(benchClaims, (caller) => ({
  rules: [{ areas: ["bench"], rows: { createdBy: caller.claims.owner }, check: { creditLimit: { "<=": 100000 } } }],
  members: { email: { write: { areas: ["bench"] } } },
}))
export class PolicyCompany extends Company {}

/** The same Company with a change feed (BENCH_CHANGE_FEED=1): every write also writes its change record. */
@ChangeFeed()
export class FeedCompany extends Company {}

/** The entity the routes serve: Company, PolicyCompany under BENCH_POLICY=1, or FeedCompany under BENCH_CHANGE_FEED=1. */
export const BenchCompany: typeof Company =
  process.env.BENCH_POLICY === "1" ? PolicyCompany : process.env.BENCH_CHANGE_FEED === "1" ? FeedCompany : Company;
