# openai-acp in a container: an ACP agent on stdio. Run with `docker run -i --rm ...` (see README).

# Build stage: full toolchain, compile and bundle.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build.mjs

# Runtime stage: non-root, and only the bundle. dist/ holds the CLI with its production
# dependencies bundled in (and the V8 code cache made by the build on this same Node image), so
# no node_modules is needed; package.json is read for the version.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json ./
COPY --from=build /app/dist ./dist
# Sessions are saved under the node user's state directory; mount a volume there to keep them
# (a volume mounted on a directory the image owns keeps that owner, so node can write to it).
RUN mkdir -p /home/node/.local/state/openai-acp && chown -R node:node /home/node/.local
USER node
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["acp"]
