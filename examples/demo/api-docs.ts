// GET /api/docs: the interactive API reference (Swagger UI, from the swagger-ui-dist package), reading the
// served OpenAPI document. Everything it needs is served by the demo itself, so it works offline.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { AuthorizationType, Get, HttpAuthorizationType, HttpController, HttpError, OpenApi, Uri } from "tenon/http";
import type { DemoContext } from "./demo-context.js";

/** The files of the page: name → media type; nothing else under /api/docs is served. */
const assets: ReadonlyMap<string, string> = new Map([
  ["swagger-ui.css", "text/css; charset=utf-8"],
  ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
  ["init.js", "text/javascript; charset=utf-8"],
]);

/** The page: the stylesheet, the bundle and the start script, all under /api/docs; an empty icon, so no favicon request. */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tenon demo API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

/** Starts Swagger UI on the served document; `validatorUrl: null` keeps it from calling an online validator. */
const init = `window.ui = SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

/** The files read so far (read on first request, not at start-up). */
const cache = new Map<string, string>();

function asset(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    if (name === "init.js") text = init;
    else {
      const directory = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
      text = readFileSync(join(directory, name), "utf8");
    }
    cache.set(name, text);
  }
  return text;
}

/** GET /docs and its assets, anonymous: the reference page of the demo's API. */
@Uri("/docs")
@AuthorizationType(HttpAuthorizationType.None)
export class ApiDocsController extends HttpController<DemoContext> {
  /** The page. */
  @Get()
  @OpenApi({ summary: "The API reference page.", responseBody: { type: "string" }, responseMediaTypes: ["text/html"] })
  page(): void {
    this.response.contentType = "text/html; charset=utf-8";
    this.response.content = page;
  }

  /** One of the page's files; any other name is 404. */
  @Get("?", { params: "string" })
  @OpenApi({
    summary: "A file of the API reference page: its stylesheet or one of its scripts.",
    parameterNames: ["file"],
    responseBody: { type: "string" },
    responseMediaTypes: ["text/css", "text/javascript"],
  })
  asset(name: string): void {
    const type = assets.get(name);
    if (type === undefined) throw new HttpError(404, `No file ${name} in the API reference.`);
    this.response.contentType = type;
    this.response.setHeader("Cache-Control", "public, max-age=3600");
    this.response.content = asset(name);
  }
}
