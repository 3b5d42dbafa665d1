// The policy example of README.md ("Policies in ten lines"), compiled with the project and run by
// test/policy/readme-policies.test.ts, so that the README stays true. The lines between the markers are the README's.
import { ClaimType, type ClaimsOf, Column, declareClaims, Policy, PrimaryKey, Sequence, Table, Type, VersionColumn } from "tenon";

// README: begin
const claims = declareClaims({ region: ClaimType.string }); // what the authentication knows of a caller

@Table("Accounts")
@Sequence("AccountsID")
@Policy<Account, ClaimsOf<typeof claims>>(claims, (caller) => ({
  rules: [
    { areas: ["admin"] }, // admins: every row, every operation
    { rows: { region: caller.claims.region }, check: { limit: { "<=": "100000.00" } } }, // others: their region's rows
  ],
  members: { notes: { read: { areas: ["admin"] } } }, // read (and written) by admins only
  set: { insert: { owner: caller.username } }, // always the caller, whatever the body says
}))
export class Account {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Region", Type.varchar(2)) region = "EU";
  @Column("CreditLimit", Type.decimal(18, 2)) limit = "0.00";
  @Column("Notes", Type.string.orNull) notes: string | null = null;
  @Column("Owner", Type.varchar(50)) owner = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}
// README: end

export { claims as accountClaims };
