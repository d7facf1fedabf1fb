/** Runs the kubectl on PATH against a test server's orchconfig (tests skip themselves when there is none). */
import { execFile, execFileSync } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** kubectl with `--kubeconfig orchconfig` and HOME set to `home`, so no user configuration or cache leaks in. */
export function runKubectl(orchconfig: string, home: string, args: string[]): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', orchconfig, ...args], { env: { ...process.env, HOME: home } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as any).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
