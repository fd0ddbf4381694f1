# The function app's image: the official Azure Functions Node 22 base (Functions host 4), with the
# compiled app under /home/site/wwwroot. Built by `azd deploy` (remotely, in the registry) from the
# repository root; `docker build .` works the same way locally.

# --- build: compile TypeScript, then keep only the production dependencies ---
FROM mcr.microsoft.com/azure-functions/node:4-node22 AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Install scripts are skipped: the Functions Core Tools CLI (an optional dependency for local
# development) would download a large binary the image never uses. Optional dependencies stay:
# esbuild's platform binary, which bundles the app, is one. argon2 ships prebuilt binaries; its
# script only checks them, so it is run on its own.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild argon2
COPY tsconfig.json host.json ./
COPY functions ./functions
COPY shared ./shared
COPY devhost ./devhost
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev --omit=optional --no-audit --no-fund

# --- runtime ---
FROM mcr.microsoft.com/azure-functions/node:4-node22
# UV_THREADPOOL_SIZE: libuv's pool runs Argon2, and each of its threads keeps a 19 MiB arena after a
# hash; two threads bound what a burst of child sign-ins adds (README, "Benchmark").
ENV AzureWebJobsScriptRoot=/home/site/wwwroot \
    AzureFunctionsJobHost__Logging__Console__IsEnabled=true \
    FUNCTIONS_WORKER_RUNTIME=node \
    NODE_ENV=production \
    UV_THREADPOOL_SIZE=2
WORKDIR /home/site/wwwroot
COPY --from=build /src/package.json /src/host.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The Functions host listens on port 80; /api/health and /api/ready are the probes (infra/modules/function-app.bicep).
EXPOSE 80
