#!/usr/bin/env bash
# Starts (`up`), stops (`down`) or describes (`status`) a three-node MariaDB Galera cluster on 127.0.0.1
# with HAProxy in front, on ports free at the time; see docs/scaling.md. Needs root (the nodes run as the
# mysql OS user), galera-4, rsync and haproxy. The ports and process ids go to $GALERA_STATE
# (default /tmp/tenon-galera.json), which `down` reads to stop everything `up` started.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
node "$root/node_modules/typescript/bin/tsc" -p "$root/tsconfig.json"
exec node "$root/dist/test/support/galera-cli.js" "$@"
