# openai-acp in a container: an ACP agent on stdio (`docker run -i --rm ...`), or over the network
# with `serve` (docs/docker.md, docs/remote.md).
#
# Base image: the Node.js LTS line (https://github.com/nodejs/Release: 24 "Krypton", LTS until
# 2028-04-30; Node 20 reached end of life on 2026-04-30). Another LTS line:
# `docker build --build-arg NODE_MAJOR=26 .`. Both stages must use the same Node: the build
# trains a V8 code cache that only that Node version accepts.
ARG NODE_MAJOR=24

# Build stage: full toolchain, compile and bundle.
FROM node:${NODE_MAJOR}-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `prepare` script would build before the sources are copied.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build.mjs
# Source maps stay out of the runtime image unless asked: `--build-arg SOURCEMAPS=true`.
ARG SOURCEMAPS=false
RUN if [ "$SOURCEMAPS" != "true" ]; then find dist -name '*.map' -delete; fi

# Runtime stage: non-root, and only the bundle. dist/ holds the CLI with its production
# dependencies bundled in (and the V8 code cache made by the build on this same Node image), so
# no node_modules is needed; package.json is read for the version.
FROM node:${NODE_MAJOR}-trixie-slim
ENV NODE_ENV=production
# ripgrep runs search_files (its walk, ignore rules and linear-time regex engine); without it the
# agent falls back to a slower built-in search. From Debian, so no binary is downloaded at run time.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ripgrep \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json ./
COPY --from=build /app/dist ./dist
# Sessions are saved under the node user's state directory; mount a volume there to keep them
# (a volume mounted on a directory the image owns keeps that owner, so node can write to it).
# The config file is read from /home/node/.config/openai-acp/config.json: mount it read-only.
RUN mkdir -p /home/node/.local/state/openai-acp /home/node/.config/openai-acp && chown -R node:node /home/node/.local /home/node/.config
# `openai-acp serve` (ACP over the network, docs/remote.md) listens on 8765; mount the code it
# works on at /workspace and pass `--root /workspace`.
# The command sandbox (bubblewrap, OPENAI_ACP_SANDBOX) is not in this image: Docker's default
# seccomp profile forbids the user namespaces it needs, so the container is the boundary of the
# commands the model runs (serve says so once at start; the environment policy still keeps the
# secrets from them). To confine commands inside the container too, add `bubblewrap` to the
# apt-get line above and run with `--security-opt seccomp=unconfined --security-opt apparmor=unconfined`
# (or a seccomp profile allowing unshare and clone of namespaces) and OPENAI_ACP_SANDBOX=on.
RUN mkdir -p /workspace && chown node:node /workspace
EXPOSE 8765
USER node
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["acp"]
