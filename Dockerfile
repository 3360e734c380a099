# The Hookwise gateway as a container image: built from this repository in a first stage (dev tools, compilers),
# run from a second one with production dependencies only, as an unprivileged user, the config dir a volume.
#   docker build -t hookwise .
#   docker run --rm -v hookwise:/var/lib/hookwise hookwise gateway setup --yes     # config.yaml + .env (secret)
#   docker run -d --name hookwise -p 8644:8644 -v hookwise:/var/lib/hookwise hookwise
# NODE_IMAGE: any Debian-based image with Node 20 or later (a mirror of node:20-bookworm-slim, say).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 is compiled when no prebuilt binary fits the image; the compilers stay in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# `npm ci` builds through the root `prepare` script (tsc -b and the CLI's oclif manifest).
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf packages/*/src packages/*/test plugins/*/src plugins/*/test examples bench docs scripts \
 && find . -name '*.tsbuildinfo' -delete

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOOKWISE_HOME=/var/lib/hookwise \
    WEBHOOK_HOST=0.0.0.0
# The agent sandbox: bubblewrap, and socat for its fast egress forwarder. Inside a container bubblewrap needs user
# namespaces (or the container's seccomp/AppArmor profile relaxed); without them agent.sandbox.mode auto warns and
# runs agents unsandboxed, and mode required refuses to start (docs/security.md).
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap socat \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 hookwise \
 && useradd --system --uid 10001 --gid hookwise --home-dir /var/lib/hookwise --create-home --shell /usr/sbin/nologin hookwise
COPY --from=build /src /opt/hookwise
RUN ln -s /opt/hookwise/packages/hookwise/bin/hookwise.js /usr/local/bin/hookwise
USER hookwise
WORKDIR /var/lib/hookwise
# config.yaml, .env, webhook_subscriptions.json, skills/ and the SQLite store live here.
VOLUME ["/var/lib/hookwise"]
EXPOSE 8644
# Healthy while the gateway of /var/lib/hookwise answers GET /health (it records its address in gateway.run.json).
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["hookwise", "gateway", "status"]
ENTRYPOINT ["hookwise"]
# SIGTERM (docker stop) lets running jobs finish for shutdown_timeout_seconds (10 s): keep the stop timeout above it.
CMD ["gateway", "run", "--log-format", "json"]
