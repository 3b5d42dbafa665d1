// GET /api/changes-view: a page that logs on and shows the changes of companies and orders arriving through a
// browser's EventSource (GET /api/changes, docs/changes.md). Anonymous: it asks for a user name and password.
import { AuthorizationType, Get, HttpAuthorizationType, HttpController, OpenApi, Uri } from "tenon/http";
import type { DemoContext } from "./demo-context.js";

/** The page: a logon form, then one line per change, newest last. */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tenon demo: changes</title>
<link rel="icon" href="data:,">
<style>body{font-family:sans-serif;margin:2em}li{font-family:monospace;margin:.2em 0}#state{color:#666}</style>
</head>
<body>
<h1>Changes of companies and orders</h1>
<form id="logon"><input name="username" placeholder="user" value="editor"> <input name="password" type="password" placeholder="password"> <button>Watch</button></form>
<p id="state">Not connected.</p>
<ol id="changes"></ol>
<script>
const state = document.getElementById("state");
const list = document.getElementById("changes");
document.getElementById("logon").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const answer = await fetch("/api/logon", { method: "POST", body: JSON.stringify({ username: form.get("username"), password: form.get("password") }) });
  if (!answer.ok) { state.textContent = "Wrong user name or password."; return; }
  const { token } = await answer.json();
  const source = new EventSource("/api/changes?access_token=" + encodeURIComponent(token));
  source.onopen = () => { state.textContent = "Connected: changes appear as other clients commit them."; };
  source.onerror = () => { state.textContent = "Disconnected: reconnecting..."; };
  source.onmessage = (message) => {
    const change = JSON.parse(message.data);
    const item = document.createElement("li");
    item.dataset.id = message.lastEventId;
    item.dataset.entity = change.entity;
    item.dataset.key = String(change.key);
    item.dataset.action = change.action;
    item.textContent = message.lastEventId + " " + change.entity + " " + change.key + " " + change.action + " v" + change.version + (change.data ? " " + JSON.stringify(change.data) : "");
    list.append(item);
  };
});
</script>
</body>
</html>
`;

/** GET /changes-view, anonymous: the page. */
@Uri("/changes-view")
@AuthorizationType(HttpAuthorizationType.None)
export class ChangesViewController extends HttpController<DemoContext> {
  /** The page. */
  @Get()
  @OpenApi({
    summary: "A page that shows the changes of companies and orders as they arrive.",
    responseBody: { type: "string" },
    responseMediaTypes: ["text/html"],
  })
  page(): void {
    this.response.contentType = "text/html; charset=utf-8";
    this.response.content = page;
  }
}
