import type { Context } from "tenon";
import { demoTenants } from "./authentication.js";
import { Company, Employee, Order, OrderLine } from "./entities.js";

const companies = [
  { name: "Acme Corporation", email: "info@acme.example", vatNumber: "IT01234567890", creditLimit: "50000.00", region: "EU" },
  { name: "Globex Industries", email: "sales@globex.example", vatNumber: "DE123456789", creditLimit: "120000.00", region: "US" },
  { name: "Initech", email: "contact@initech.example", vatNumber: "FR12345678901", creditLimit: "15000.00", region: "EU" },
  { name: "Umbrella Trading", email: "office@umbrella.example", vatNumber: "NL123456789B01", creditLimit: "0.00", region: "US" },
];

/** The seed's companies of the region `US` (the others are `EU`): a demo database of an earlier Tenon gets the same. */
export const seededUsCompanies: readonly string[] = companies.filter((company) => company.region === "US").map((company) => company.name);

const firstNames = ["Ada", "Alan", "Grace", "Linus", "Barbara", "Edsger", "Donald", "Margaret", "Ken", "Frances"];
const lastNames = ["Lovelace", "Turing", "Hopper", "Torvalds", "Liskov", "Dijkstra", "Knuth", "Hamilton", "Thompson", "Allen"];
const products = ["Anvil", "Rocket skates", "Giant magnet", "Tornado seeds", "Earthquake pills", "Bird seed"];

/**
 * Fills the demo tables: 4 companies, 20 employees spread over them, 5 orders with 1 to 4 lines each, all of the
 * first tenant (the second starts empty). `context` must be explicitly unscoped (`context.unscoped = true`):
 * seeding writes a tenant's rows without being one of its users, so every row names its tenant itself.
 */
export async function seedDemo(context: Context): Promise<void> {
  context.onGetCurrentUser = () => "seed";
  const tenantId = demoTenants.seeded;
  await context.transaction(async () => {
    const saved: Company[] = [];
    for (const data of companies) {
      const company = await context.createEntity(Company);
      Object.assign(company, data, { tenantId });
      await context.insert(company);
      saved.push(company);
    }
    for (let i = 0; i < 20; i++) {
      const employee = await context.createEntity(Employee);
      employee.tenantId = tenantId;
      employee.firstName = firstNames[i % firstNames.length];
      employee.lastName = lastNames[(i * 3) % lastNames.length];
      employee.email = `${employee.firstName}.${employee.lastName}${i}@example.com`.toLowerCase();
      employee.company.id = saved[i % 3].id;
      employee.salary = (30000 + i * 1250).toFixed(2);
      employee.notes = `Internal note ${i}`;
      await context.insert(employee);
    }
    for (let i = 0; i < 5; i++) {
      const order = await context.createEntity(Order);
      order.tenantId = tenantId;
      order.createdBy = "seed";
      order.number = `SO-2026-${String(i + 1).padStart(4, "0")}`;
      order.company.id = saved[i % 3].id;
      const lines: OrderLine[] = [];
      for (let j = 0; j <= i % 4; j++) {
        const line = await context.createEntity(OrderLine);
        line.tenantId = tenantId;
        line.product = products[(i + j) % products.length];
        line.quantity = j + 1;
        line.price = `${(i + 1) * 10 + j}.50`;
        lines.push(line);
      }
      order.lines.replace(lines);
      await context.insert(order);
      for (const line of lines) {
        line.order.id = order.id;
        await context.insert(line);
      }
    }
  });
}
