# One image for the API server, the worker and the CLI (untested here: this machine has no Docker engine).
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm install --global pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "--import", "tsx", "services/api/src/main.ts"]
