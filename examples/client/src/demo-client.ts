// A typed client of the Tenon demo: the types come from the demo's OpenAPI document (`npm run generate`
// writes generated/demo-api.d.ts with openapi-typescript), the calls go through openapi-fetch.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { Readable, Writable } from "openapi-typescript-helpers";
import type { components, paths } from "../generated/demo-api.js";

/** A company as the demo answers it (its read-only change-tracking properties included). */
export type Company = Readable<components["schemas"]["Company"]>;

/** A company as a request body carries it (no read-only property; only `name` is required). */
export type CompanyBody = Writable<components["schemas"]["CompanyInput"]>;

/**
 * The demo's API, every path and method typed from its OpenAPI document, reading JSON answers: a select also
 * answers NDJSON and CSV, and a client typed for every media type would see each answer as any of them.
 */
export type DemoClient = Client<paths, "application/json">;

/** A client of the demo at `origin` (such as http://127.0.0.1:8022) that logs on and then sends its bearer token. */
export async function loggedOnClient(origin: string, username: string, password: string): Promise<DemoClient> {
  const client = createClient<paths, "application/json">({ baseUrl: origin });
  const { data, error } = await client.POST("/api/logon", { body: { username, password } });
  if (data === undefined) throw new Error(`Logon refused: ${error.message}`);
  const token = data.token;
  const bearer: Middleware = {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/** What the walkthrough saw, step by step: statuses and the values a reader checks. */
export interface Walkthrough {
  readonly listed: { readonly status: number; readonly count: number };
  readonly filtered: { readonly status: number; readonly names: readonly string[] };
  readonly aggregated: { readonly status: number; readonly groups: number; readonly orders: number };
  readonly inserted: { readonly status: number; readonly id: number; readonly name: string };
  readonly updated: { readonly status: number; readonly versionId: number };
  readonly staleUpdate: { readonly status: number; readonly message: string };
  readonly deleted: { readonly status: number; readonly deleted: boolean };
  readonly afterDelete: { readonly status: number };
}

/** Logs on, lists, filters, inserts, updates, updates again with a stale version (409) and deletes, on companies. */
export async function walkthrough(origin: string): Promise<Walkthrough> {
  const client = await loggedOnClient(origin, "editor", "editor");

  const list = await client.GET("/api/companies");
  if (list.data === undefined) throw new Error(`List failed: ${list.error.message}`);
  const listed = { status: list.response.status, count: list.data.count };

  const select = await client.POST("/api/companies/select", {
    body: { where: [{ columnName: "name", condition: "LIKE", value: "A%" }], orderBy: [{ columnName: "name", direction: "ASC" }] },
  });
  if (select.data === undefined) throw new Error(`Select failed: ${select.error.message}`);
  const filtered = { status: select.response.status, names: select.data.data.map((company) => company.name) };

  // A question instead of a list: orders per company, with their exact total.
  const question = await client.POST("/api/orders/aggregate", {
    body: {
      groupBy: ["company.name"],
      metrics: [
        { fn: "count", as: "orders" },
        { fn: "sum", column: "total", as: "total" },
      ],
      orderBy: [{ columnName: "total", direction: "DESC" }],
    },
  });
  if (question.data === undefined) throw new Error(`Aggregate failed: ${question.error.message}`);
  const groups = question.data.data;
  const aggregated = {
    status: question.response.status,
    groups: groups.length,
    orders: groups.reduce((sum, group) => sum + Number(group.orders), 0),
  };

  const insert = await client.POST("/api/companies", {
    body: { name: "Typed Client Ltd", email: "hello@typed.example", creditLimit: "1000.00" },
  });
  if (insert.data === undefined) throw new Error(`Insert failed: ${insert.error.message}`);
  const company: Company = insert.data;
  const inserted = { status: insert.response.status, id: company.id, name: company.name };
  const { id, name, email, vatNumber, versionId } = company;
  const body: CompanyBody = { id, name, email, vatNumber, creditLimit: "2000.00", versionId };

  const update = await client.PUT("/api/companies", { body });
  if (update.data === undefined) throw new Error(`Update failed: ${update.error.message}`);
  const updated = { status: update.response.status, versionId: update.data.versionId };

  // The version read before the first update is stale now: the server answers 409.
  const stale = await client.PUT("/api/companies", { body: { ...body, creditLimit: "3000.00" } });
  if (stale.error === undefined) throw new Error("A stale update was accepted.");
  const staleUpdate = { status: stale.response.status, message: stale.error.message };

  const remove = await client.DELETE("/api/companies/{id}/{version}", {
    params: { path: { id: company.id, version: update.data.versionId } },
  });
  if (remove.data === undefined) throw new Error(`Delete failed: ${remove.error.message}`);
  const deleted = { status: remove.response.status, deleted: remove.data.deleted };

  const after = await client.GET("/api/companies/{id}", { params: { path: { id: company.id } } });
  return { listed, filtered, aggregated, inserted, updated, staleUpdate, deleted, afterDelete: { status: after.response.status } };
}
