// The demo's change view (/api/changes-view) in a real headless Chromium (Debian's chromium, driven by
// playwright-core): the page logs on, opens an EventSource on /api/changes, and shows the changes that another
// client (this test, over HTTP) commits, in order, with no console error.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type BrowserContext } from "playwright-core";
import { ask } from "../http/http-test-client.js";
import { sqliteDemoEngine } from "./demo-engines.js";
import { startDemo, type DemoProcess } from "./demo-process.js";

const chromiumPath = "/usr/bin/chromium";
const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"];

describe("the demo's change view in Chromium", () => {
  let demo: DemoProcess;
  let browser: BrowserContext;
  let profile: string;

  before(async () => {
    if (!existsSync(chromiumPath)) assert.fail(`${chromiumPath} is missing: install Debian's chromium package (.ci/run does).`);
    const db = await sqliteDemoEngine.open();
    demo = await startDemo(db.env);
    profile = mkdtempSync(join(tmpdir(), "tenon-chromium-"));
    browser = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, args: chromiumArgs, headless: true });
  });
  after(async () => {
    await browser?.close();
    await demo?.stop();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  test("changes committed by another client arrive in the page through EventSource, in commit order", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`http://127.0.0.1:${demo.port}/api/changes-view`);
    await page.fill("input[name=password]", "editor");
    await page.click("button");
    await page.waitForFunction("document.getElementById('state').textContent.startsWith('Connected')", undefined, { timeout: 30_000 });
    // Another client: this test, as the admin of the same tenant.
    const logon = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: "admin", password: "admin" }) });
    const token = (logon.json as { token: string }).token;
    const write = async (method: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
      const answer = await ask(demo.port, `/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.json as Record<string, unknown>;
    };
    const company = await write("POST", "/companies", { name: "Seen in Chromium" });
    await write("PATCH", `/companies/${company.id}`, { versionId: 0, name: "Seen in Chromium, renamed" });
    const order = await write("POST", "/orders", { number: "SO-CHROMIUM", companyId: company.id, lines: [] });
    await page.waitForFunction("document.querySelectorAll('#changes li').length >= 3", undefined, { timeout: 30_000 });
    const items = await page.$$eval("#changes li", (elements) =>
      elements.map((element) => [
        element.getAttribute("data-entity"),
        Number(element.getAttribute("data-key")),
        element.getAttribute("data-action"),
      ]),
    );
    assert.deepEqual(items, [
      ["Company", company.id, "insert"],
      ["Company", company.id, "update"],
      ["Order", order.id, "insert"],
    ]);
    const ids = await page.$$eval("#changes li", (elements) => elements.map((element) => Number(element.getAttribute("data-id"))));
    assert.ok(ids[0] < ids[1] && ids[1] < ids[2], ids.join(","));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
