# One image, two commands: the web app (the default) and the worker (`node worker/dist/worker.cjs`).
# Built from `npm run build`'s two artifacts; at run time it holds no TypeScript, tsx or test tool.
# docs/DEPLOY.md says how it is built, deployed and rolled back.

# --- build: every dependency, the Next standalone server and the bundled worker
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1 SIGNALBRIDGE_SKIP_TOOLS=1
COPY package.json package-lock.json ./
COPY scripts/install-tools.mjs scripts/
RUN npm ci --no-audit --no-fund
COPY . .
# The browser's public Firebase settings are compiled into the pages (NEXT_PUBLIC_*): pass them at build time.
ARG NEXT_PUBLIC_FIREBASE_API_KEY NEXT_PUBLIC_FIREBASE_AUTH_DOMAIN NEXT_PUBLIC_FIREBASE_PROJECT_ID \
    NEXT_PUBLIC_FIREBASE_APP_ID NEXT_PUBLIC_INTERCOM_APP_ID
RUN npm run build

# --- the worker's production dependencies alone
FROM node:24.21.0-bookworm-slim AS worker-deps
WORKDIR /app/worker
COPY package.json package-lock.json ./
# scripts/lib/rehearsal.ts installs the same way and checks that no dev tool comes along.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- run: non-root, Node 24 slim
FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=8080 HOSTNAME=0.0.0.0
COPY --from=build --chown=node:node /src/.next/standalone ./web
COPY --from=worker-deps --chown=node:node /app/worker ./worker
COPY --from=build --chown=node:node /src/dist ./worker/dist
USER node
EXPOSE 8080
CMD ["node", "web/server.js"]
