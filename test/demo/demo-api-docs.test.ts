// The demo's API reference page (/api/docs) in a real headless Chromium (Debian's chromium, driven by
// playwright-core): it loads with no console error, offline (every file from the demo), lists every route
// of the OpenAPI document, and a "try it" call authorized with a bearer token gets its 200 in the page. TENON_SCREENSHOT=<file> saves a screenshot (docs/api-reference.png is made so).
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
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe("the demo's API reference page in Chromium", () => {
  let demo: DemoProcess;
  let browser: BrowserContext;
  let profile: string;

  before(async () => {
    if (!existsSync(chromiumPath)) assert.fail(`${chromiumPath} is missing: install Debian's chromium package (.ci/run does).`);
    const db = await sqliteDemoEngine.open();
    demo = await startDemo(db.env);
    profile = mkdtempSync(join(tmpdir(), "tenon-chromium-"));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      args: chromiumArgs,
      headless: true,
      viewport: { width: 1280, height: 900 },
    });
  });
  after(async () => {
    await browser?.close();
    await demo?.stop();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  test("/api/docs and its files answer without credentials, and an unknown file is 404", async () => {
    const pageAnswer = await ask(demo.port, "/api/docs");
    assert.equal(pageAnswer.status, 200);
    assert.match(String(pageAnswer.headers["content-type"]), /^text\/html/);
    const bundle = await ask(demo.port, "/api/docs/swagger-ui-bundle.js");
    assert.equal(bundle.status, 200);
    assert.match(String(bundle.headers["content-type"]), /^text\/javascript/);
    assert.equal((await ask(demo.port, "/api/docs/package.json")).status, 404);
  });

  test("the page loads offline with no console error and lists every route and webhook of the document", async () => {
    const document = (await ask(demo.port, "/api/openapi.json")).json as {
      paths: Record<string, Record<string, unknown>>;
      webhooks?: Record<string, Record<string, unknown>>;
    };
    // Swagger UI lists a webhook (the change feed's delivery) under its name, as an operation of its own.
    const expected = [...Object.entries(document.paths), ...Object.entries(document.webhooks ?? {})]
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const page = await browser.newPage();
    const problems: string[] = [];
    const origin = `http://127.0.0.1:${demo.port}`;
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page: ${error.message}`));
    page.on("request", (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith("data:")) problems.push(`off-site request: ${request.url()}`);
    });
    await page.goto(`${origin}/api/docs`);
    await page.waitForSelector(".opblock", { timeout: 30000 });
    const listed = (
      await page.$$eval(".opblock", (blocks) =>
        blocks.map((block) => {
          const method = block.querySelector(".opblock-summary-method")?.textContent ?? "";
          const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
          return `${method.trim()} ${path}`;
        }),
      )
    ).sort();
    assert.deepEqual([...new Set(listed)], expected);
    assert.deepEqual(problems, []);
    const shot = process.env.TENON_SCREENSHOT;
    if (shot !== undefined && shot !== "") await page.screenshot({ path: shot });
    await page.close();
  });

  test('a "try it" call authorized with a bearer token answers 200, shown in the page', async () => {
    const logon = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: "guest", password: "guest" }) });
    const token = (logon.json as { token: string }).token;
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page: ${error.message}`));
    try {
      await page.goto(`http://127.0.0.1:${demo.port}/api/docs`);
      await page.waitForSelector(".opblock", { timeout: 30000 });
      await page.click("button.authorize");
      await page.fill(".modal-ux input#auth-bearer-value", token);
      await page.click(".modal-ux .auth-btn-wrapper button.authorize");
      await page.waitForSelector(".modal-ux .auth-btn-wrapper button[aria-label='Remove authorization']", { timeout: 10000 });
      await page.click(".modal-ux button.btn-done");
      const operation = "#operations-Company-CompanyController_selectAll";
      await page.click(`${operation} .opblock-summary`);
      await page.click(`${operation} .try-out__btn`);
      await page.click(`${operation} .execute`);
      const status = `${operation} .live-responses-table tbody .response-col_status`;
      await page.waitForSelector(status, { timeout: 30000 });
      assert.equal((await page.$eval(status, (cell) => cell.textContent ?? "")).trim(), "200");
      const body = await page.$eval(
        `${operation} .live-responses-table tbody .response-col_description pre`,
        (pre) => pre.textContent ?? "",
      );
      const answer = JSON.parse(body) as { count: number; data: { name: string }[] };
      assert.ok(answer.count >= 3 && answer.data.some((company) => company.name === "Acme Corporation"), body);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
