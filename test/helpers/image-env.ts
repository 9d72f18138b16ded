/**
 * What the container image (Dockerfile) sets for the process, read from the Dockerfile itself, so a
 * test (and the bench's "as shipped" target) runs the gateway with the image's heap settings and
 * cannot drift from them.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The image's NODE_OPTIONS (its ENV instruction), e.g. `--max-semi-space-size=16 ...`. */
export function imageNodeOptions(root = path.resolve(__dirname, '..', '..')): string {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const match = /^\s*NODE_OPTIONS="([^"]*)"/m.exec(dockerfile);
  if (!match) throw new Error('the Dockerfile sets no NODE_OPTIONS');
  return match[1]!;
}
