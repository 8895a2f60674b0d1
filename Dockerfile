# convops service image: builds the TypeScript and runs all roles (override with ROLES).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# The install rebuilds lmdb-js from source with a fix (scripts/build-lmdb.mjs), which takes a compiler.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY scripts/build-lmdb.mjs scripts/patch-mongodb.mjs ./scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY machines ./machines
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data LOG_FORMAT=json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures ./fixtures
COPY web ./web
# The data folder belongs to the user the service runs as, so the embedded log and store can write.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
EXPOSE 3000 9464
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.ROLES&&!process.env.ROLES.includes('api')?(process.env.OPS_PORT||9464):(process.env.PORT||3000))+'/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
