import type { HealthResponse } from '@esign/contract';

/** esign-cli health: is the API up, and on which database. */
export async function health(opts: { url: string }, out: (line: string) => void): Promise<number> {
  let res: Response;
  try {
    res = await fetch(new URL('/health', opts.url));
  } catch (err) {
    out(`Cannot reach ${opts.url}: ${(err as Error).message}`);
    return 1;
  }
  if (!res.ok) {
    out(`${opts.url} answered ${res.status}`);
    return 1;
  }
  const body = (await res.json()) as HealthResponse;
  out(`${opts.url}: ${body.status}, database ${body.database}, version ${body.version}`);
  return 0;
}
