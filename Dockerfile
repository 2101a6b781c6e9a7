# Stratus container image, built with npm only:
#   docker build -t stratus .
#   docker run -p 8080:8080 -v stratus-data:/data stratus
# See docs/operations.md (PostgreSQL, several API and worker processes, backups).

# Dependencies, with the toolchain better-sqlite3 needs when no prebuilt binary fits.
FROM node:20-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    STRATUS_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/_stratus/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The same node flags as `npm start` (README): the API under steady load.
ENTRYPOINT ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "bin/stratus.js"]
CMD ["serve"]
