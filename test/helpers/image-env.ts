/**
 * What the container image (Dockerfile) sets for the process, read from the Dockerfile itself, so a
 * test (and the bench's "as shipped" target) runs the gateway with the image's heap settings and
 * cannot drift from them.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** The NODE_OPTIONS that the Dockerfile of checkout `root` sets, or null (none, or no Dockerfile). */
export function imageNodeOptionsOf(root: string): string | null {
  const dockerfile = path.join(root, 'Dockerfile');
  if (!fs.existsSync(dockerfile)) return null;
  return /^\s*NODE_OPTIONS="([^"]*)"/m.exec(fs.readFileSync(dockerfile, 'utf8'))?.[1] ?? null;
}

/** This checkout's image NODE_OPTIONS, e.g. `--max-semi-space-size=16 ...`. */
export function imageNodeOptions(): string {
  const options = imageNodeOptionsOf(ROOT);
  if (options === null) throw new Error('the Dockerfile sets no NODE_OPTIONS');
  return options;
}
