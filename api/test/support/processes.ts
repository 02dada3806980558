import { spawn, type ChildProcess } from 'node:child_process';

/** What a finished command printed, and its exit code. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together (OpenSSL prints its verdicts on either). */
  out: string;
}

/**
 * Runs a command without blocking this process: the test app serving the OCSP responder and CRLs the command reads
 * lives in this very process.
 */
export function run(command: string, args: string[], options: { cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, out: `${stdout}\n${stderr}` }));
  });
}

/** Like run, failing with the command's output unless it exits 0. */
export async function runOk(command: string, args: string[], options: { cwd?: string } = {}): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.out}`);
  return result;
}

/** A long-running process (a server) started by a test, ready once its output matches `ready`. */
export async function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(command, args, { cwd: options.cwd });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} did not start: ${output}`)),
      options.timeoutMs ?? 10_000,
    );
    const look = (d: Buffer) => {
      output += d.toString('utf8');
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited ${code}: ${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
