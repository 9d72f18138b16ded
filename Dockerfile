# The gateway's container image (docs/deployment.md, "Container image and stack").
#
# Stage 1 builds with the development dependencies and makes the runtime with the same script the
# tests run (scripts/build-runtime.js: dist/, prisma/migrations, package.json with production scripts,
# `npm ci --omit=dev`); stage 2 is that runtime alone on a slim Node image, run as a non-root user.
# No container engine runs where this project is developed: test/deploy/runtime.test.ts builds and
# starts the same runtime, and test/deploy/container-files.test.ts checks what this file names.

FROM node:24-bookworm-slim AS build
WORKDIR /src
# Dependencies first, so a source change does not reinstall them. The postinstall (patch-package,
# then prisma generate) needs the patches, the Prisma schema and config.
COPY package.json package-lock.json prisma.config.ts ./
COPY patches ./patches
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build-runtime.js /runtime

FROM node:24-bookworm-slim
# The V8 heap: the gateway fixes its old generation's growth itself (HEAP_GROWING_PERCENT, default
# 50), and the image bounds the young generation's semi-spaces at 16 MiB (NODE_OPTIONS): under load V8
# grows them to 64 MiB each, 128 MiB of the ~330 a process peaked at; bounded, it peaks at ~240 MiB for
# 2-5 % more CPU per request (docs/deployment.md "Memory"). NODE_OPTIONS="" gives V8 its own choice.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-semi-space-size=16" \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
# Owned by root, read-only to the user that runs it: the process cannot change its own code.
COPY --from=build /runtime ./
USER node
EXPOSE 4000
# /readyz: 200 while the database answers (docs/operations.md); Node's fetch, the image has no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/src/healthcheck.js"]
# Exec form: node is PID 1 and gets SIGTERM itself (no npm, no shell in between), drains and exits 0.
# WEB_CONCURRENCY (e.g. auto) makes it the primary of that many workers (src/cluster.ts).
CMD ["node", "dist/src/main.js"]
