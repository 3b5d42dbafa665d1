// Type tests: each line under a @ts-expect-error must fail to compile. If the document stopped describing a
// body, a name or a path, the line would compile, the directive would be unused, and `tsc` would fail.
import type { Company, CompanyBody, DemoClient } from "./demo-client.js";

/** Never called: compiling this file is the test. */
export async function wrongNamesDoNotCompile(client: DemoClient, company: Company, body: CompanyBody): Promise<void> {
  // @ts-expect-error: a company has no property "nmae".
  const typo: CompanyBody = { name: "Typo Ltd", nmae: "Typo Ltd" };
  await client.POST("/api/companies", { body: typo });
  // @ts-expect-error: a new company needs its name (@Required).
  await client.POST("/api/companies", { body: { email: "hello@typed.example" } });
  // @ts-expect-error: createdBy is read-only: the server writes it, a request body cannot carry it.
  await client.PUT("/api/companies", { body: { ...body, createdBy: "me" } });
  // @ts-expect-error: "nmae" is not a filterable column of Company.
  await client.POST("/api/companies/select", { body: { where: [{ columnName: "nmae", condition: "=", value: "x" }] } });
  // @ts-expect-error: "EQUALS" is not an operator of the filter body.
  await client.POST("/api/companies/select", { body: { where: [{ columnName: "name", condition: "EQUALS", value: "x" }] } });
  // @ts-expect-error: "median" is not an aggregate function.
  await client.POST("/api/orders/aggregate", { body: { metrics: [{ fn: "median", column: "total", as: "m" }] } });
  // @ts-expect-error: "nmae" is not a column an aggregate of companies may group by.
  await client.POST("/api/companies/aggregate", { body: { groupBy: ["nmae"], metrics: [{ fn: "count", as: "n" }] } });
  // @ts-expect-error: the demo has no path /api/companys.
  await client.GET("/api/companys");
  // @ts-expect-error: a company's name is a string, not a number.
  const name: number = company.name;
  // @ts-expect-error: a company has no property "nmae" to read.
  console.log(name, company.nmae);
  // @ts-expect-error: the id placeholder of a company is a number.
  await client.GET("/api/companies/{id}", { params: { path: { id: "seven" } } });
}
