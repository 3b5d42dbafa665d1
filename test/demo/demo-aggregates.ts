// Aggregates and count modes in the demo, end to end on each engine: POST /api/<name>/aggregate in the read area,
// its answers against what the select route reads of the same rows, the other tenant's view, and a select's
// `count: "estimated"` and `{"atMost": n}`. Part of the end-to-end suite (one demo process per engine); every
// exchange is checked against the served OpenAPI document with the rest of the suite.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DemoDataApiHelpers } from "./demo-data-api.js";

type Row = Record<string, unknown>;

/** Cents of a decimal text, exactly. */
function cents(text: string): bigint {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = text.replace("-", "").split(".");
  const value = BigInt(whole) * 100n + BigInt(`${fraction}00`.slice(0, 2));
  return negative ? -value : value;
}

function centsText(value: bigint): string {
  const digits = (value < 0n ? -value : value).toString().padStart(3, "0");
  return `${value < 0n ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Defines the aggregate tests inside the demo suite's `describe`; `engine` is the engine's name. */
export function defineDemoAggregateTests(h: DemoDataApiHelpers, engine: string): void {
  test("the read area aggregates orders by company name: the counts and exact totals of the rows select reads", async () => {
    const orders = (await h.ok("POST", "/orders/select", "guest", { limit: 1000 })).data as Row[];
    const companies = (await h.ok("POST", "/companies/select", "guest", { limit: 1000 })).data as Row[];
    const names = new Map(companies.map((company) => [company.id, company.name as string]));
    const expected = new Map<string | null, { orders: number; total: bigint }>();
    for (const order of orders) {
      const name = names.get(order.companyId) ?? null;
      const group = expected.get(name) ?? { orders: 0, total: 0n };
      group.orders++;
      group.total += cents(order.total as string);
      expected.set(name, group);
    }
    const answer = await h.ok("POST", "/orders/aggregate", "guest", {
      groupBy: ["company.name"],
      metrics: [
        { fn: "count", as: "orders" },
        { fn: "sum", column: "total", as: "total" },
      ],
      orderBy: [{ columnName: "total", direction: "DESC" }],
    });
    const wanted = [...expected.entries()]
      .sort((a, b) => (a[1].total === b[1].total ? String(a[0]).localeCompare(String(b[0])) : a[1].total > b[1].total ? -1 : 1))
      .map(([name, group]) => ({ "company.name": name, orders: group.orders, total: centsText(group.total) }));
    assert.deepEqual(answer.data, wanted);
    assert.ok((answer.data as Row[]).length >= 3, "the seeded orders of three companies");
  });

  test("an anonymous caller is refused and the other tenant measures only its own rows", async () => {
    h.expectError(await h.call("POST", "/orders/aggregate", { body: { metrics: [{ fn: "count", as: "n" }] } }), 401);
    const mine = await h.ok("POST", "/orders/aggregate", "guest", { metrics: [{ fn: "count", as: "n" }] });
    const theirs = await h.ok("POST", "/orders/aggregate", "rival", { metrics: [{ fn: "count", as: "n" }] });
    const rivalOrders = (await h.ok("POST", "/orders/select", "rival", { limit: 1000 })).data as Row[];
    assert.deepEqual(theirs.data, [{ n: rivalOrders.length }]);
    assert.ok(((mine.data as Row[])[0].n as number) >= 5);
    h.expectError(
      await h.call("POST", "/employees/aggregate", { user: "guest", body: { metrics: [{ fn: "sum", column: "salary", as: "s" }] } }),
      400,
    );
  });

  test("a select counts by mode: estimated from the engine's statistics (exactly on SQLite), atMost up to its ceiling", async () => {
    const exact = (await h.ok("POST", "/employees/select", "guest", { limit: 1 })).count as number;
    const capped = await h.ok("POST", "/employees/select", "guest", { limit: 1, count: { atMost: 5 } });
    assert.deepEqual([capped.count, capped.countKind], exact > 5 ? [5, "atLeast"] : [exact, undefined]);
    const estimated = await h.ok("POST", "/employees/select", "guest", { limit: 1, count: "estimated" });
    if (engine.startsWith("SQLite")) assert.deepEqual([estimated.count, estimated.countKind], [exact, undefined]);
    else {
      assert.equal(estimated.countKind, "estimated");
      assert.ok(Number.isSafeInteger(estimated.count) && (estimated.count as number) >= 0, String(estimated.count));
    }
  });
}
