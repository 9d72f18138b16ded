/**
 * Prisma CLI configuration.
 *
 * Why the JS engine and an adapter: this project's machines reach only the npm registry, and Prisma's
 * CLI otherwise downloads a native schema engine at run time. With `engine: "js"` and a driver adapter
 * the CLI runs offline for `prisma generate` and `prisma migrate diff` (see README, "Migrations").
 * DATABASE_URL defaults to a placeholder so that a fresh `npm install` can generate the client without
 * a database; `migrate diff` needs a real one and connects to it without changing it.
 */
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

const placeholder = 'postgresql://postgres@127.0.0.1:5432/postgres';
process.env.DATABASE_URL ??= placeholder;

export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  engine: 'js',
  experimental: { adapter: true },
  async adapter() {
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? placeholder });
  },
});
