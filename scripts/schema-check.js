#!/usr/bin/env node
/**
 * The schema-change check (CI, docs/relay.md "Schema changes"): GraphQL Inspector compares
 * schema.graphql (what the code builds) with schema/released.graphql (the schema of the last release)
 * and fails on a breaking change unless schema/breaking-changes.json declares it: an entry
 * `{ "type": "FIELD_REMOVED", "path": "Pet.name", "reason": "..." }`, type and path as printed here.
 * Dangerous and safe changes are listed, never fatal.
 *
 *   node scripts/schema-check.js [current.graphql] [released.graphql] [declarations.json]
 */
const fs = require('node:fs');
const path = require('node:path');
const { buildSchema } = require('graphql');
const { diff, CriticalityLevel } = require('@graphql-inspector/core');

const root = path.resolve(__dirname, '..');
const [
  current = 'schema.graphql',
  released = 'schema/released.graphql',
  declarations = 'schema/breaking-changes.json',
] = process.argv.slice(2).map((p) => path.resolve(root, p));

async function main() {
  const load = (file) => buildSchema(fs.readFileSync(path.resolve(root, file), 'utf8'));
  const declared = JSON.parse(fs.readFileSync(path.resolve(root, declarations), 'utf8')).declared ?? [];
  for (const entry of declared) {
    if (typeof entry.type !== 'string' || typeof entry.path !== 'string' || !entry.reason) {
      throw new Error(
        `${declarations}: every declaration needs "type", "path" and a "reason": ${JSON.stringify(entry)}`,
      );
    }
  }
  const changes = await diff(load(released), load(current));
  const isDeclared = (change) => declared.some((d) => d.type === change.type && d.path === (change.path ?? ''));
  let undeclared = 0;
  for (const change of changes) {
    const level = change.criticality.level;
    const breaking = level === CriticalityLevel.Breaking;
    const mark = breaking ? (isDeclared(change) ? 'BREAKING (declared)' : 'BREAKING') : level.toLowerCase();
    if (breaking && !isDeclared(change)) undeclared++;
    console.log(`${mark}: ${change.type} ${change.path ?? ''}: ${change.message}`);
  }
  console.log(
    `schema check: ${changes.length} change(s) against ${path.relative(root, released)}, ${undeclared} undeclared breaking`,
  );
  if (undeclared > 0) {
    console.error(
      `Breaking schema changes: keep the old field/argument (deprecate it), or declare each in ${path.relative(root, declarations)}`,
    );
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exit(2);
});
