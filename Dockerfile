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

# Runtime stage: production dependencies only, non-root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Sessions are saved under the node user's state directory; mount a volume there to keep them
# (a volume mounted on a directory the image owns keeps that owner, so node can write to it).
RUN mkdir -p /home/node/.local/state/openai-acp && chown -R node:node /home/node/.local
USER node
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["acp"]
