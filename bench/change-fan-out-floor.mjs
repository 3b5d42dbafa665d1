// The floor under the change stream's fan-out (docs/changes.md, "Measured"): a bare node:http server, no Tenon,
// holds `--streams` Server-Sent Events responses open and writes one event of the size Tenon's bench sends to each
// of them, `--events` times (`--gap` ms apart); the server's CPU time per event (user and system, from /proc), for
// each way of writing: `res.write` of a string (what Tenon's sink does), of a Buffer, or a chunk already framed for
// chunked encoding written to the socket itself (what node:http could not do for less).
//   node bench/change-fan-out-floor.mjs [--streams 1000] [--events 200] [--gap 20] [--ways string,buffer,socket]
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";

const event = `id: 1\ndata: {"entity":"FeedCompany","key":10001,"action":"insert","version":1,"data":{"id":10001,"name":"Delivered 1","email":null,"vatNumber":null,"creditLimit":null,"createdAt":"2026-11-26T22:00:00.000Z","createdBy":"bench","updatedAt":null,"updatedBy":"","deletedAt":null,"deletedBy":"","versionId":1}}\n\n`;

if (process.argv[2] === "--serve") {
  const way = process.argv[3];
  const open = [];
  const body = Buffer.from(event);
  const framed = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n")]);
  const server = http.createServer((req, res) => {
    if (req.url !== "/send") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      open.push(res);
      return;
    }
    for (const each of open) {
      if (way === "string") each.write(event);
      else if (way === "buffer") each.write(body);
      else each.socket.write(framed);
    }
    res.end();
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`LISTENING ${server.address().port}\n`));
} else {
  const { values: o } = parseArgs({
    options: {
      streams: { type: "string", default: "1000" },
      events: { type: "string", default: "200" },
      gap: { type: "string", default: "20" },
      ways: { type: "string", default: "string,buffer,socket" },
    },
  });
  const streams = Number(o.streams);
  const events = Number(o.events);
  for (const way of o.ways.split(",")) {
    const server = spawn(process.execPath, [new URL(import.meta.url).pathname, "--serve", way], { stdio: ["ignore", "pipe", "inherit"] });
    const port = await new Promise((resolve) => {
      let text = "";
      server.stdout.on("data", (chunk) => {
        text += chunk;
        const match = /LISTENING (\d+)/.exec(text);
        if (match !== null) resolve(Number(match[1]));
      });
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
    let received = 0;
    const requests = [];
    await Promise.all(
      Array.from(
        { length: streams },
        () =>
          new Promise((resolve) => {
            const req = http.get({ host: "127.0.0.1", port, path: "/stream", agent }, (res) => {
              res.setEncoding("utf8");
              res.on("data", (chunk) => {
                for (let at = chunk.indexOf("\n\n"); at >= 0; at = chunk.indexOf("\n\n", at + 2)) received++;
              });
              resolve();
            });
            requests.push(req);
          }),
      ),
    );
    const cpu = () => {
      const fields = fs.readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
      return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }; // USER_HZ 100: 10 ms a tick
    };
    const before = cpu();
    for (let i = 0; i < events; i++) {
      await fetch(`http://127.0.0.1:${port}/send`).then((response) => response.text());
      await new Promise((resolve) => setTimeout(resolve, Number(o.gap)));
    }
    while (received < streams * events) await new Promise((resolve) => setTimeout(resolve, 20));
    const after = cpu();
    const loadAverage = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    console.log(
      `${way}: ${streams} streams, server CPU per event user ${((after.user - before.user) / events).toFixed(2)} ms, ` +
        `system ${((after.system - before.system) / events).toFixed(2)} ms (load ${loadAverage})`,
    );
    for (const req of requests) req.destroy();
    agent.destroy();
    server.kill();
    await new Promise((resolve) => server.once("exit", resolve));
  }
}
