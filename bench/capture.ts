/**
 * The statements each read shape (shapes.ts) sends, captured by running a checkout's build in a
 * child process (sql-capture.ts): used by bench:explain (this checkout) and bench:sql-cpu (this one
 * and `--baseline DIR`; one build per process, so two builds never share a module registry).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../src/config';

export interface CapturedShape {
  shape: string;
  statements: { text: string; values: unknown[] }[];
}

/** Runs the build of checkout `root` against the database `url`; each shape's statements, in order. */
export function captureStatements(root: string, url: string): CapturedShape[] {
  const out = execFileSync(process.execPath, [path.join(projectRoot, 'dist', 'bench', 'sql-capture.js'), root, url], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as CapturedShape[];
}

/**
 * The planner settings the build of checkout `root` gives its sessions (`PLANNER_OPTIONS` of its
 * src/db/database.ts, the startup packet's `options`), or undefined for a build without them: a
 * statement is measured in a session set as that build's gateway sets its own.
 */
export function sessionOptionsOf(root: string): string | undefined {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      'process.stdout.write(require(process.argv[1]).PLANNER_OPTIONS ?? "")',
      path.join(root, 'dist', 'src', 'db', 'database.js'),
    ],
    { encoding: 'utf8', cwd: root },
  );
  return out || undefined;
}
