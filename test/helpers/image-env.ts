/**
 * What the container image (Dockerfile) sets for the process, read from the Dockerfile itself, so a
 * test (and the bench's "as shipped" target) runs the gateway with the image's heap settings and
 * cannot drift from them.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The NODE_OPTIONS that the Dockerfile of checkout `root` sets, or null (none, or no Dockerfile). */
export function imageNodeOptionsOf(root: string): string | null {
  const dockerfile = path.join(root, 'Dockerfile');
  if (!fs.existsSync(dockerfile)) return null;
  return /^\s*NODE_OPTIONS="([^"]*)"/m.exec(fs.readFileSync(dockerfile, 'utf8'))?.[1] ?? null;
}
