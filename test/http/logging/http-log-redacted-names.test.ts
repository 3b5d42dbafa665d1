import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { HttpLogRedactedNames } from "../../../src/http/logging/http-log-redacted-names.js";
import { HttpServerError } from "../../../src/http/exchange/http-errors.js";
import { runningServers } from "../../../src/http/logging/running-servers.js";

test("the built-in header and parameter names are on the list", () => {
  for (const name of ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key"])
    assert.equal(HttpLogRedactedNames.isRedacted(name), true, name);
  for (const name of ["token", "access_token", "refresh_token", "id_token", "api_key", "key", "password", "signature"]) {
    assert.equal(HttpLogRedactedNames.isRedacted(name), true, name);
  }
  assert.equal(HttpLogRedactedNames.builtInNames.length, 13);
  assert.equal(HttpLogRedactedNames.isRedacted("Content-Type"), false);
  assert.equal(HttpLogRedactedNames.isRedacted("keys"), false);
});

test("one list covers headers and parameters and ignores case", () => {
  assert.equal(HttpLogRedactedNames.isRedacted("AUTHORIZATION"), true);
  assert.equal(HttpLogRedactedNames.isRedacted("authorization"), true);
  assert.equal(HttpLogRedactedNames.isRedacted("PassWord"), true);
  assert.equal(HttpLogRedactedNames.isRedacted("x-api-key"), true);
  // a header name used as a parameter and the other way round
  assert.equal(HttpLogRedactedNames.isRedacted("cookie"), true);
  assert.equal(HttpLogRedactedNames.isRedacted("Signature"), true);
});

test("an application name is added, compared without case, and removed again", () => {
  HttpLogRedactedNames.add("X-Tenant-Key");
  try {
    assert.equal(HttpLogRedactedNames.isRedacted("x-tenant-key"), true);
    assert.ok(HttpLogRedactedNames.names.includes("X-Tenant-Key"));
  } finally {
    HttpLogRedactedNames.remove("X-Tenant-Key");
  }
  assert.equal(HttpLogRedactedNames.isRedacted("x-tenant-key"), false);
  HttpLogRedactedNames.remove("Authorization");
  assert.equal(HttpLogRedactedNames.isRedacted("Authorization"), true, "built-in names stay");
});

test("adding a name while a server is counted as running throws HttpServerError", () => {
  runningServers.count++;
  try {
    assert.throws(() => HttpLogRedactedNames.add("X-Late"), HttpServerError);
    assert.equal(HttpLogRedactedNames.isRedacted("X-Late"), false);
  } finally {
    runningServers.count--;
  }
  HttpLogRedactedNames.add("X-Late");
  assert.equal(HttpLogRedactedNames.isRedacted("x-late"), true);
  HttpLogRedactedNames.remove("X-Late");
});

test("the comparison does not follow a Turkish machine locale", () => {
  const module = fileURLToPath(new URL("../../../src/http/logging/http-log-redacted-names.js", import.meta.url));
  const script = `
    const { HttpLogRedactedNames } = await import(${JSON.stringify(module)});
    HttpLogRedactedNames.add("Identity-Id", "iki");
    const out = {
      locale: Intl.DateTimeFormat().resolvedOptions().locale,
      localeFoldsDifferently: "TITLE".localeCompare("title", undefined, { sensitivity: "accent" }) !== 0,
      checks: ["AUTHORIZATION", "authorization", "X-API-KEY", "SIGNATURE", "ID_TOKEN", "PROXY-AUTHORIZATION", "IDENTITY-ID", "identity-id", "IKI", "İki"]
        .map((name) => [name, HttpLogRedactedNames.isRedacted(name)]),
    };
    console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" },
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout) as { locale: string; localeFoldsDifferently: boolean; checks: [string, boolean][] };
  assert.match(out.locale, /^tr/, "the child runs under a Turkish default locale");
  assert.equal(out.localeFoldsDifferently, true, "a locale-aware comparison would differ under this locale");
  const expected: Record<string, boolean> = {
    AUTHORIZATION: true,
    authorization: true,
    "X-API-KEY": true,
    SIGNATURE: true,
    ID_TOKEN: true,
    "PROXY-AUTHORIZATION": true,
    "IDENTITY-ID": true,
    "identity-id": true,
    IKI: true,
    // U+0130 folds to "i" plus a combining dot under the locale-independent mapping: a different name
    İki: false,
  };
  assert.deepEqual(Object.fromEntries(out.checks), expected);
});
