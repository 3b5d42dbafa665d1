#!/usr/bin/env bash
# Starts (`up`), stops (`down`) or describes (`status`) a Patroni cluster of three PostgreSQL 15 nodes on
# 127.0.0.1, with a single-member etcd (`--etcd3`: three members) and HAProxy in front (`--no-haproxy`: none),
# on ports free at the time; see docs/scaling.md. `--async` starts it without synchronous_mode. Needs root (the
# nodes run as the postgres OS user), patroni, etcd-server, haproxy and the PostgreSQL 15 server binaries.
# The ports and process ids go to $PATRONI_STATE (default /tmp/tenon-patroni.json), which `down` reads to stop
# everything `up` started.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
node "$root/node_modules/typescript/bin/tsc" -p "$root/tsconfig.json"
exec node "$root/dist/test/support/patroni-cli.js" "$@"
