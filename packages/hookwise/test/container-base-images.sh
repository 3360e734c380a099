#!/usr/bin/env bash
# Makes the base images the container test needs on a machine that cannot pull from Docker Hub (like the one the
# tests were written on): a Debian bookworm made by debootstrap, plus this machine's Node (with its headers and
# its CA bundle, for a TLS-intercepting proxy) as a stand-in for node:20-bookworm-slim, and Debian's redis-server
# as a stand-in for redis:7-bookworm; and a containers.conf for an engine that must use runc and ulimits within
# the machine's hard limits. Prints the variables to export for container.test.ts.
# Usage: bash packages/hookwise/test/container-base-images.sh <work dir>   (root, podman, debootstrap)
set -euo pipefail
work=${1:?work dir}
mkdir -p "$work"
conf="$work/containers.conf"
cat > "$conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$conf"
if ! podman image exists localhost/debian-minbase:bookworm; then
  rootfs="$work/rootfs"
  [ -x "$rootfs/bin/sh" ] || debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >&2
  tar -C "$rootfs" -c . | podman import - localhost/debian-minbase:bookworm >&2
fi
if ! podman image exists localhost/hookwise-node-base:20; then
  base="$work/node-base"
  rm -rf "$base" && mkdir -p "$base"
  podman export "$(podman create localhost/debian-minbase:bookworm true)" | tar -C "$base" -x
  node_bin=$(command -v node)
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  cp "$node_bin" "$base/usr/bin/node"
  mkdir -p "$base/usr/lib/node_modules" "$base/usr/include" "$base/usr/local/share/ca-certificates" "$base/etc/ssl/certs"
  cp -a "$npm_dir" "$base/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$base/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$base/usr/bin/npx"
  [ -d /usr/include/node ] && cp -a /usr/include/node "$base/usr/include/"
  cp /usr/local/share/ca-certificates/*.crt "$base/usr/local/share/ca-certificates/" 2>/dev/null || true
  cp /etc/ssl/certs/ca-certificates.crt "$base/etc/ssl/certs/ca-certificates.crt"
  tar -C "$base" -c . | podman import --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' --change 'ENV npm_config_nodedir=/usr' - localhost/hookwise-node-base:20 >&2
fi
if ! podman image exists localhost/redis-debian:7; then
  mkdir -p "$work/redis"
  printf 'FROM localhost/debian-minbase:bookworm\nRUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/*\n' > "$work/redis/Containerfile"
  podman build --format docker -t localhost/redis-debian:7 "$work/redis" >&2
fi
echo "export CONTAINERS_CONF=$conf NODE_IMAGE=localhost/hookwise-node-base:20 REDIS_IMAGE=localhost/redis-debian:7 HOOKWISE_CONTAINER_TESTS=1"
