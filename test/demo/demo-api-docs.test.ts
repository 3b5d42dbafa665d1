// The demo's API reference page (/api/docs) in a real headless Chromium (Debian's chromium, driven by
// playwright-core): it loads with no console error, offline (every file from the demo), and lists every route
// of the OpenAPI document. TENON_SCREENSHOT=<file> saves a screenshot (docs/api-reference.png is made so).
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

  test("the page loads offline with no console error and lists every route of the document", async () => {
    const document = (await ask(demo.port, "/api/openapi.json")).json as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(document.paths)
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
});
