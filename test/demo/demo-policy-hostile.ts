// A hostile run against the demo's policies: random requests of every user that try to reach what their policy
// hides (rows of another region or tenant, salary) through every path: gets, ETag probes, filters, orders, forged
// keyset cursors, PATCH, PUT, bulk, deletes and change-feed subscriptions replayed from the start. Every answer is
// searched for values the caller may not read, every status compared with the refusal expected, and the tables
// are compared before and after: not one request may write.
import { openEventStream } from "../support/event-stream-client.js";
import type { Answer } from "../http/http-test-client.js";
import type { PolicyDemo } from "./demo-policy-suite.js";
import { seededRandom } from "../support/seeded-random.js";

type Row = Record<string, unknown>;

/** What the run found. */
export interface HostileOutcome {
  /** The requests sent. */
  readonly sent: number;
  /** Every leaked value and every answer other than the refusal expected, described. */
  readonly leaks: string[];
  /** The four tables before the run, as text. */
  readonly tablesBefore: string;
  /** The same after it. */
  readonly tablesAfter: string;
}

/** One hostile request: who sends it, what, and the statuses that are a refusal of it (undefined: any 2xx, a read). */
interface Attempt {
  readonly user: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly refused?: readonly number[];
  readonly stream?: boolean;
  /** What else its answer must not show, described when it does. */
  readonly verify?: (answer: Answer) => string | undefined;
}

/** Sends `count` hostile requests, eight at a time; answers what they found. */
export async function runHostileRequests(demo: PolicyDemo, count: number): Promise<HostileOutcome> {
  const seed = Number(process.env.TENON_POLICY_SEED ?? Date.now() % 1_000_000);
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const rows = (sql: string): Promise<Row[]> => demo.db.rows(sql);
  const snapshot = async (): Promise<string> =>
    JSON.stringify([
      await rows("SELECT * FROM Companies ORDER BY ID"),
      await rows("SELECT * FROM Employees ORDER BY ID"),
      await rows("SELECT * FROM Orders ORDER BY ID"),
      await rows("SELECT * FROM OrderLines ORDER BY ID"),
    ]);

  // What each user may not read: the companies of another region or tenant (by id, and their texts as JSON
  // strings), the other tenant's rows; and, but for admin, any member named salary.
  const usCompanies = await rows(
    "SELECT ID AS id, Name AS name, Email AS email, VatNumber AS vat FROM Companies WHERE Region <> 'EU' AND TenantID = 'north'",
  );
  const southCompanies = await rows(
    "SELECT ID AS id, Name AS name, Email AS email, VatNumber AS vat FROM Companies WHERE TenantID = 'south'",
  );
  const northCompanies = await rows(
    "SELECT ID AS id, Name AS name, Email AS email, VatNumber AS vat, Region AS region, VersionID AS version FROM Companies WHERE TenantID = 'north' AND DeletedAt IS NULL",
  );
  const euCompanies = northCompanies.filter((company) => company.region === "EU");
  const texts = (companies: readonly Row[]): string[] =>
    companies.flatMap((company) =>
      [company.name, company.email, company.vat].filter((value) => typeof value === "string" && value !== ""),
    ) as string[];
  const northEmployees = await rows("SELECT ID AS id, VersionID AS version, CompanyID AS company FROM Employees WHERE TenantID = 'north'");
  const northOrders = await rows("SELECT ID AS id, VersionID AS version, CompanyID AS company FROM Orders WHERE TenantID = 'north'");
  const secrets: Record<string, { strings: string[]; companies: Set<number>; north: boolean }> = {
    guest: { strings: texts(southCompanies), companies: new Set(southCompanies.map((c) => Number(c.id))), north: true },
    editor: { strings: texts(southCompanies), companies: new Set(southCompanies.map((c) => Number(c.id))), north: true },
    admin: { strings: texts(southCompanies), companies: new Set(southCompanies.map((c) => Number(c.id))), north: true },
    sales: {
      strings: texts([...usCompanies, ...southCompanies]),
      companies: new Set([...usCompanies, ...southCompanies].map((c) => Number(c.id))),
      north: true,
    },
    rival: { strings: texts(northCompanies), companies: new Set(northCompanies.map((c) => Number(c.id))), north: false },
  };
  const hiddenFromSales = [...usCompanies, ...southCompanies].map((c) => Number(c.id));
  const southIds = new Set(southCompanies.map((c) => Number(c.id)));
  const northIds = {
    companies: northCompanies.map((c) => Number(c.id)),
    employees: northEmployees.map((e) => Number(e.id)),
    orders: northOrders.map((o) => Number(o.id)),
    "employee-directory": northEmployees.map((e) => Number(e.id)),
  };
  const usOrders = northOrders.filter((order) => hiddenFromSales.includes(Number(order.company))).map((order) => Number(order.id));
  // The real entity tags of rows hidden from the prober: a 304 would tell that the row exists at that version.
  const northTags: [number, string][] = [];
  for (const company of usCompanies.slice(0, 20))
    northTags.push([Number(company.id), (await demo.call("GET", `/companies/${company.id}`, "admin")).headers.etag as string]);
  const southTags: [number, string][] = [];
  for (const company of southCompanies.slice(0, 5))
    southTags.push([Number(company.id), (await demo.call("GET", `/companies/${company.id}`, "rival")).headers.etag as string]);
  const tags = new Map([...northTags, ...southTags]);
  const employeeBody = (await demo.ok("GET", `/employees/${northEmployees[0].id}`, "editor")) as Row;
  const euCompany = (await demo.ok("GET", `/companies/${euCompanies[0].id}`, "sales")) as Row;
  const nonAdmins = ["guest", "editor", "sales"];
  const writers = ["editor", "sales"];
  const salaryNames = ["salary", "Salary", "SALARY", "sAlArY"];
  const cursorOf = (values: unknown[]): string => Buffer.from(JSON.stringify(values), "utf8").toString("base64url");
  const versionOf = async (table: string, id: number): Promise<number> =>
    Number((await rows(`SELECT VersionID AS v FROM ${table} WHERE ID = ${id}`))[0]?.v ?? 0);

  const attempts: (() => Promise<Attempt> | Attempt)[] = [
    // Rows of another region or tenant, by key, by find, and under an entity tag.
    () => ({ user: "sales", method: "GET", path: `/companies/${pick(hiddenFromSales)}`, refused: [404] }),
    () => ({ user: "sales", method: "GET", path: `/companies/find/${pick(hiddenFromSales)}`, refused: [404] }),
    () => {
      const user = pick(["sales", "rival"]);
      const [id, tag] = pick(user === "rival" ? northTags : [...northTags, ...southTags]);
      return { user, method: "GET", path: `/companies/${id}`, headers: { "If-None-Match": tag }, refused: [404] };
    },
    () => {
      const entity = pick(["companies", "employees", "orders", "employee-directory"] as const);
      return { user: "rival", method: "GET", path: `/${entity}/${pick(northIds[entity])}`, refused: [404] };
    },
    // Salary in filters and orders, under any spelling.
    () => ({
      user: pick(nonAdmins),
      method: "POST",
      path: "/employees/select",
      body: { where: [{ columnName: pick(salaryNames), condition: pick([">", "<", "=", "IS NULL"]), value: "40000" }] },
      refused: [400],
    }),
    () => ({
      user: pick(nonAdmins),
      method: "POST",
      path: "/employees/select",
      body: { orderBy: [{ columnName: pick(salaryNames), direction: pick(["ASC", "DESC"]) }] },
      refused: [400],
    }),
    () => ({
      user: pick(nonAdmins),
      method: "POST",
      path: "/employees/select",
      body: {
        where: [
          {
            or: [
              { columnName: "firstName", condition: "IS NOT NULL" },
              { columnName: pick(salaryNames), condition: ">", value: 1 },
            ],
          },
        ],
      },
      refused: [400],
    }),
    // Filters, orders and pages that a policy's rows must bound.
    () => ({
      user: pick(["sales", "rival", "editor"]),
      method: "POST",
      path: "/companies/select",
      body: {
        where: [
          pick([
            { columnName: "region", condition: "IN", value: ["US", "EU"] },
            { columnName: "name", condition: "LIKE", value: "%" },
            { columnName: "creditLimit", condition: ">", value: "0" },
            { columnName: "id", condition: "IN", value: [...hiddenFromSales.slice(0, 5), ...northIds.companies.slice(0, 5)] },
            {
              or: [
                { columnName: "region", condition: "=", value: "US" },
                { columnName: "deletedAt", condition: "IS NOT NULL" },
              ],
            },
          ]),
        ],
        orderBy: [{ columnName: pick(["name", "region", "creditLimit", "id"]), direction: pick(["ASC", "DESC"]) }],
        limit: 1 + Math.floor(random() * 5),
        count: random() < 0.5,
      },
    }),
    // Keyset cursors: a forged one anchored on a hidden company, and a real page followed.
    () => {
      const hidden = pick(usCompanies);
      return {
        user: "sales",
        method: "POST",
        path: "/companies/select",
        body: { orderBy: [{ columnName: "name" }], limit: 2, after: cursorOf(["name+,id+", hidden.name, hidden.id]) },
      };
    },
    () => ({
      user: pick(nonAdmins),
      method: "POST",
      path: "/employees/select",
      body: { orderBy: [{ columnName: "salary" }], limit: 2, after: cursorOf(["salary+,id+", "40000.00", 1]) },
      refused: [400],
    }),
    async () => {
      const first = await demo.call("POST", "/companies/select", "sales", { orderBy: [{ columnName: "creditLimit" }], limit: 1 });
      const cursor = (first.json as { nextCursor?: string }).nextCursor;
      return {
        user: "sales",
        method: "POST",
        path: "/companies/select",
        body:
          cursor === undefined
            ? { orderBy: [{ columnName: "creditLimit" }], limit: 1 }
            : { orderBy: [{ columnName: "creditLimit" }], limit: 1, after: cursor },
      };
    },
    // Writes that must be refused: hidden members, hidden rows, values beyond the limit, another region.
    async () => ({
      user: pick(writers),
      method: "PATCH",
      path: `/employees/${employeeBody.id}`,
      body: { versionId: await versionOf("Employees", Number(employeeBody.id)), salary: pick(["1.00", "99999.00", employeeBody.lastName]) },
      refused: [422],
    }),
    async () => {
      const id = pick(hiddenFromSales);
      return {
        user: "sales",
        method: "PATCH",
        path: `/companies/${id}`,
        body: { versionId: await versionOf("Companies", id), name: "Hijacked" },
        refused: [404],
      };
    },
    async () => {
      const id = Number(euCompany.id);
      return {
        user: "sales",
        method: "PATCH",
        path: `/companies/${id}`,
        body: {
          versionId: await versionOf("Companies", id),
          ...pick([{ creditLimit: "150000.00" }, { region: "US" }, { creditLimit: "100000.01", name: "Over" }]),
        },
        refused: [422],
      };
    },
    async () => {
      const id = pick(hiddenFromSales);
      const version = await versionOf("Companies", id);
      return {
        user: "sales",
        method: "PUT",
        path: "/companies",
        body: { id, versionId: version, name: "Hijacked" },
        headers: { "If-Match": tags.get(id) ?? `"${id}-${version}"` },
        refused: [404, 412],
      };
    },
    async () => {
      const id = pick(hiddenFromSales);
      return { user: "sales", method: "DELETE", path: `/companies/${id}/${await versionOf("Companies", id)}`, refused: [404] };
    },
    async () => {
      const entity = pick(["companies", "employees", "orders"] as const);
      const id = pick(northIds[entity]);
      const table = entity === "companies" ? "Companies" : entity === "employees" ? "Employees" : "Orders";
      return pick<Attempt>([
        { user: "rival", method: "DELETE", path: `/${entity}/${id}/${await versionOf(table, id)}`, refused: [404] },
        { user: "rival", method: "PATCH", path: `/${entity}/${id}`, body: { versionId: await versionOf(table, id) }, refused: [404] },
        {
          user: "rival",
          method: "POST",
          path: `/${entity}/bulk`,
          body: { delete: [{ id, versionId: await versionOf(table, id) }] },
          refused: [404],
        },
      ]);
    },
    async () => {
      const id = pick(hiddenFromSales);
      return pick<Attempt>([
        {
          user: "sales",
          method: "POST",
          path: "/companies/bulk",
          body: { update: [{ id, versionId: await versionOf("Companies", id), name: "Bulk hijack" }] },
          refused: [404],
        },
        { user: "sales", method: "POST", path: "/companies/bulk", body: { insert: [{ name: "Bulk US", region: "US" }] }, refused: [422] },
        {
          user: "sales",
          method: "POST",
          path: "/companies/bulk",
          body: { insert: [{ name: "Bulk rich", creditLimit: "200000.00" }] },
          refused: [422],
        },
        {
          user: "editor",
          method: "POST",
          path: "/employees/bulk",
          body: { insert: [{ firstName: "Bulk", lastName: "Paid", companyId: euCompany.id, salary: "1.00" }] },
          refused: [422],
        },
      ]);
    },
    () => ({
      user: pick(["editor", "sales"]),
      method: "POST",
      path: "/orders",
      body: { number: "HOSTILE", companyId: euCompany.id, createdBy: pick(["admin", "mallory", ""]) },
      refused: [422],
    }),
    () => ({
      user: "sales",
      method: "POST",
      path: "/employees",
      body: { firstName: "Hidden", lastName: "Company", companyId: pick(hiddenFromSales) },
      refused: [422],
    }),
    () => ({ user: "guest", method: pick(["POST", "PUT"]), path: "/companies", body: { name: "Guest Co" }, refused: [403] }),
    // Aggregates: only the rows and members the caller may read are measured or grouped.
    () => ({
      user: "sales",
      method: "POST",
      path: "/companies/aggregate",
      body: {
        groupBy: [pick(["region", "name", "vatNumber", "email"])],
        metrics: [{ fn: pick(["count", "countDistinct"]), column: "id", as: "n" }],
      },
      // A group of another region's companies would show its region here, or its name and texts to the secrets' check.
      verify: (answer) =>
        ((answer.json as { data?: Row[] }).data ?? []).some((row) => row.region !== undefined && row.region !== "EU")
          ? `a group beyond EU: ${answer.text.slice(0, 200)}`
          : undefined,
    }),
    () => ({
      user: pick(nonAdmins),
      method: "POST",
      path: "/employees/aggregate",
      body: pick([
        { metrics: [{ fn: pick(["sum", "avg", "min", "max"]), column: pick(salaryNames), as: "s" }] },
        { groupBy: [pick(salaryNames)], metrics: [{ fn: "count", as: "n" }] },
        {
          metrics: [{ fn: "count", as: "n" }],
          having: [{ columnName: "n", condition: ">", value: 0 }],
          where: [{ columnName: pick(salaryNames), condition: ">", value: "0" }],
        },
      ]),
      refused: [400],
    }),
    () => ({
      user: "sales",
      method: "POST",
      path: "/employees/aggregate",
      body: { groupBy: ["company.name"], metrics: [{ fn: "count", as: "n" }] },
      refused: [400],
    }),
    // Reads whose answers are searched for what the caller may not see.
    () => ({
      user: pick(["guest", "editor", "sales", "rival", "admin"]),
      method: "GET",
      path: `/${pick(["companies", "employees", "orders", "employee-directory"])}`,
    }),
    () => ({
      user: pick(nonAdmins),
      method: "GET",
      path: pick([
        `/employees/${pick(northIds.employees)}`,
        `/employees/find/${pick(northIds.employees)}`,
        "/employees/metadata",
        "/openapi/mine",
      ]),
    }),
    () => ({ user: "sales", method: "GET", path: `/orders/${usOrders.length > 0 ? pick(usOrders) : pick(northIds.orders)}` }),
    () => ({
      user: pick(["sales", "rival", "editor"]),
      method: "GET",
      path: pick(["/changes", "/companies/changes", "/orders/changes"]),
      stream: true,
    }),
  ];

  const leaks: string[] = [];
  const inspect = (attempt: Attempt, answer: Answer): void => {
    const what = `${attempt.user} ${attempt.method} ${attempt.path} ${JSON.stringify(attempt.body ?? "")} -> ${answer.status} (seed ${seed})`;
    if (answer.status >= 500) leaks.push(`${what}: a server error`);
    if (attempt.refused !== undefined && !attempt.refused.includes(answer.status))
      leaks.push(`${what}: not refused: ${answer.text.slice(0, 300)}`);
    if (attempt.refused === undefined && answer.status >= 300) leaks.push(`${what}: a read failed: ${answer.text.slice(0, 300)}`);
    const secret = secrets[attempt.user];
    for (const text of secret.strings) if (answer.text.includes(JSON.stringify(text))) leaks.push(`${what}: ${text}`);
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) for (const item of value) walk(item);
      else if (typeof value === "object" && value !== null) {
        for (const [key, item] of Object.entries(value)) {
          if (key === "salary" && attempt.user !== "admin") leaks.push(`${what}: salary`);
          if (key === "tenantId" || key === "notes" || key === "companyRegion") leaks.push(`${what}: ${key}`);
          walk(item);
        }
      }
    };
    walk(answer.json);
    const extra = attempt.verify?.(answer);
    if (extra !== undefined) leaks.push(`${what}: ${extra}`);
  };
  const streamed = async (attempt: Attempt): Promise<Answer> => {
    const stream = await openEventStream(demo.port(), `/api${attempt.path}`, {
      Authorization: `Bearer ${demo.token(attempt.user)}`,
      "Last-Event-ID": "0",
    });
    // The backlog from the first record arrives at once: read what comes within a moment, then leave.
    for (let i = 0; i < 400 && !stream.comments.includes("changes"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 150));
    stream.close();
    // A record shows the row as of its change: it may name a company that is hidden now but was the caller's then.
    // What may never come is a record of a row its policy did not grant it in that very record.
    const northOrderKeys = new Set(northIds.orders);
    for (const event of stream.events) {
      const record = event.data;
      const data = record.data as Row | undefined;
      const foreign =
        attempt.user === "rival"
          ? (record.entity === "Company" && secrets.rival.companies.has(Number(record.key))) ||
            (record.entity === "Order" && northOrderKeys.has(Number(record.key)))
          : record.entity === "Company" &&
            secrets[attempt.user].companies.has(Number(record.key)) &&
            secrets[attempt.user].north &&
            southIds.has(Number(record.key));
      const wrongRegion = attempt.user === "sales" && record.entity === "Company" && data !== undefined && data.region !== "EU";
      if (foreign || wrongRegion) leaks.push(`${attempt.user} ${attempt.path}: ${JSON.stringify(record).slice(0, 200)} (seed ${seed})`);
    }
    // The records' texts are judged above, record by record; their members are still walked for hidden ones.
    return { status: stream.status, headers: stream.headers, text: "", json: stream.events.map((event) => event.data) };
  };

  const tablesBefore = await snapshot();
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < count) {
      sent++;
      const attempt = await pick(attempts)();
      const answer =
        attempt.stream === true
          ? await streamed(attempt)
          : await demo.call(attempt.method, attempt.path, attempt.user, attempt.body, attempt.headers);
      inspect(attempt, answer);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const tablesAfter = await snapshot();
  return { sent, leaks, tablesBefore, tablesAfter };
}
