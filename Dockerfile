# Stratus container image, built with npm only:
#   docker build -t stratus .
#   docker run -p 8080:8080 -v stratus-data:/data stratus
# See docs/operations.md (PostgreSQL, several API and worker processes, backups).

# Dependencies and the compiled build (npm ci runs `prepare`, which is `npm run build`); then the
# dev tools are pruned. npm only: better-sqlite3's install script would fetch a prebuilt binary
# from GitHub (prebuild-install) and node-gyp the Node headers from nodejs.org; instead it is
# compiled here with the image's toolchain against the headers the image ships in /usr/local.
FROM node:20-bookworm AS build
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json tsconfig.testing.json ./
COPY bin ./bin
COPY src ./src
# The web console's sources: `npm run build` makes dist/console/ from them.
COPY console ./console
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    STRATUS_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
# bin/stratus.js runs dist/ when it is newer than every file of src/ (it is: built last).
COPY --from=build /app/src ./src
COPY --from=build /app/dist ./dist
# The build wrote the bundle's code cache for the ENTRYPOINT's Node options (bin/warm-cache.mjs,
# the same as `npm start`'s); the folder is the server user's, so a start with other options
# writes one of its own (bin/run-bundle.js).
RUN mkdir -p /data && chown node:node /data /app/dist/bundle
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/_stratus/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The same node flags as `npm start` (README): the API under steady load.
ENTRYPOINT ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "bin/stratus.js"]
CMD ["serve"]
