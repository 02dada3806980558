import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Limits } from '@esign/contract';
import { CONFIG_VARIABLES, loadConfig } from '../src/config/app-config';
import { nginxConfig } from './scale-out/cluster';
import { freePort } from './support/mariadb-server';

/**
 * The deployment files of docker/: nginx's configuration (nginx -t, and a real nginx in front of a stand-in node),
 * the compose services, the example environment against the product's variables, and the Dockerfile's targets.
 * No Docker engine is needed.
 */
const DOCKER = resolve(__dirname, '..', '..', 'docker');
const NGINX = '/usr/sbin/nginx';
const read = (name: string) => readFileSync(join(DOCKER, name), 'utf8');

const SERVICES = ['api-1', 'api-2', 'worker', 'mariadb', 'redis', 'minio', 'minio-init', 'nginx'];

/** compose.yml's services, each with its lines (line-based: no YAML library in the tree). */
function composeServices(text: string): Map<string, string> {
  const services = new Map<string, string>();
  let inServices = false;
  let current: string | null = null;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) {
      inServices = /^services:\s*$/.test(line);
      current = null;
      continue;
    }
    if (!inServices) continue;
    const header = /^ {2}([A-Za-z0-9_.-]+):\s*$/.exec(line);
    if (header) {
      current = header[1];
      services.set(current, '');
    } else if (current) {
      services.set(current, `${services.get(current)}${line}\n`);
    }
  }
  return services;
}

/** KEY=VALUE lines of an env file (comments and blank lines skipped). */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`not KEY=VALUE: ${raw}`);
    env[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return env;
}

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

/** The Dockerfile's stages (continuation lines joined). */
function dockerStages(text: string): Stage[] {
  const stages: Stage[] = [];
  const joined = text.replace(/\\\n/g, ' ');
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ from: from[1], name: (from[2] ?? `#${stages.length}`).toLowerCase(), lines: [] });
    else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

/** A stage's directive (the last one, inherited from the stages it is built FROM). */
function directive(stages: Stage[], name: string, keyword: string): string | undefined {
  const stage = stages.find((s) => s.name === name);
  if (!stage) return undefined;
  const own = stage.lines.filter((l) => l.toUpperCase().startsWith(`${keyword} `)).at(-1);
  return own ?? directive(stages, stage.from.toLowerCase(), keyword);
}

describe('docker/ deployment files', () => {
  describe('nginx', () => {
    const haveNginx = existsSync(NGINX);
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'esign-nginx-test-'));
      // Run as root, nginx's workers are nobody: they must reach their temporary folders in here.
      chmodSync(dir, 0o755);
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** docker/nginx/nginx.conf made runnable here: the nodes on 127.0.0.1, every path in `dir`. */
    function composeConfigHere(listenPort: number, upstreamPorts: number[]): string {
      let conf = read('nginx/nginx.conf');
      const servers = [...conf.matchAll(/server\s+(api-\d+):3000\b/g)].map((m) => m[1]);
      expect(servers).toEqual(['api-1', 'api-2']);
      servers.forEach((name, i) => {
        conf = conf.replace(`server ${name}:3000`, `server 127.0.0.1:${upstreamPorts[i]}`);
      });
      expect(conf).toContain('include /etc/nginx/esign-proxy.conf;');
      conf = conf
        .replace('include /etc/nginx/esign-proxy.conf;', `include ${join(DOCKER, 'nginx', 'esign-proxy.conf')};`)
        .replace(
          /include \/etc\/nginx\/mime\.types;/,
          existsSync('/etc/nginx/mime.types') ? 'include /etc/nginx/mime.types;' : '',
        )
        .replace(/^user .*\n/m, '')
        .replace(/^pid .*$/m, `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;`)
        .replace(/access_log \/dev\/stdout;/, `access_log ${dir}/access.log;`)
        .replace(/error_log \/dev\/stderr warn;/, `error_log ${dir}/error.log warn;`)
        .replace(/listen 8080;/, `listen 127.0.0.1:${listenPort};`)
        .replace(
          /http \{/,
          `http {\n    client_body_temp_path ${dir}/client_body;\n    proxy_temp_path ${dir}/proxy;\n` +
            `    fastcgi_temp_path ${dir}/fastcgi;\n    uwsgi_temp_path ${dir}/uwsgi;\n    scgi_temp_path ${dir}/scgi;`,
        );
      return `daemon off;\n${conf}`;
    }

    const nginxTest = (configPath: string) =>
      spawnSync(NGINX, ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', configPath], { encoding: 'utf8' });

    (haveNginx ? it : it.skip)('docker/nginx/nginx.conf with esign-proxy.conf passes nginx -t', () => {
      const configPath = join(dir, 'nginx.conf');
      writeFileSync(configPath, composeConfigHere(18080, [13001, 13002]));
      const run = nginxTest(configPath);
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
      expect(run.stderr).toContain('test is successful');
    });

    (haveNginx ? it : it.skip)("the scale-out harness's configuration (the same proxy file) passes nginx -t", () => {
      const configPath = join(dir, 'nginx.conf');
      writeFileSync(configPath, nginxConfig(dir, 18081, [13001, 13002, 13003]));
      const run = nginxTest(configPath);
      expect(run.stderr).toContain('test is successful');
      expect(run.status).toBe(0);
    });

    it('esign-proxy.conf: HTTP/1.1 with WebSocket upgrades, forwarded headers, body limit, long DSC socket', () => {
      const proxy = read('nginx/esign-proxy.conf')
        .split('\n')
        .filter((l) => !l.trim().startsWith('#'))
        .join('\n');
      expect(proxy).toMatch(/proxy_http_version 1\.1;/);
      expect(proxy).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
      expect(proxy).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
      for (const header of ['Host', 'X-Forwarded-For', 'X-Forwarded-Proto', 'X-Real-IP'])
        expect(proxy).toMatch(new RegExp(`proxy_set_header ${header} `));
      const body = /client_max_body_size (\d+)m;/.exec(proxy);
      expect(body).not.toBeNull();
      // Above the largest PDF and the liveness video's JSON (11 MB).
      expect(Number(body![1]) * 1024 * 1024).toBeGreaterThan(Math.max(Limits.maxFileBytes, 11 * 1024 * 1024));
      expect(proxy).toMatch(/proxy_next_upstream error timeout;/);
      // A POST (an upload, a signature) is never sent twice.
      expect(proxy).not.toMatch(/non_idempotent/);
      const dsc = /location \/v1\/dsc\/agent\/connect \{([^}]*)\}/.exec(proxy);
      expect(dsc).not.toBeNull();
      expect(Number(/proxy_read_timeout (\d+)s;/.exec(dsc![1])?.[1])).toBeGreaterThanOrEqual(600);
      expect(read('nginx/nginx.conf')).toMatch(/map \$http_upgrade \$connection_upgrade \{/);
    });

    (haveNginx ? it : it.skip)(
      'a real nginx with the compose configuration forwards to the nodes as the API expects',
      async () => {
        const seen: IncomingMessage[] = [];
        const upstream: Server = createServer((req, res) => {
          seen.push(req);
          req.resume();
          req.on('end', () => {
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify({ ok: true }));
          });
        });
        const upstreamPort = await new Promise<number>((r) =>
          upstream.listen(0, '127.0.0.1', () => r((upstream.address() as { port: number }).port)),
        );
        const deadPort = await freePort();
        const listenPort = await freePort();
        const configPath = join(dir, 'nginx.conf');
        writeFileSync(configPath, composeConfigHere(listenPort, [deadPort, upstreamPort]));
        const nginx: ChildProcess = spawn(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', configPath], {
          stdio: 'ignore',
          detached: true,
        });
        const url = `http://127.0.0.1:${listenPort}`;
        try {
          for (let i = 0; ; i++) {
            try {
              await fetch(`${url}/health`);
              break;
            } catch (err) {
              if (nginx.exitCode !== null || i > 100)
                throw new Error(
                  `nginx did not start: ${(err as Error).message}\n${readFileSync(join(dir, 'error.log'), 'utf8')}`,
                );
              await new Promise((r) => setTimeout(r, 100));
            }
          }
          // A GET reaches the live node even when the dead one is tried first.
          for (let i = 0; i < 3; i++) expect((await fetch(`${url}/health`)).status).toBe(200);
          const last = seen.at(-1)!;
          expect(last.headers['x-forwarded-for']).toBe('127.0.0.1');
          expect(last.headers['x-forwarded-proto']).toBe('http');
          expect(last.headers['x-real-ip']).toBe('127.0.0.1');
          expect(last.headers.host).toBe('127.0.0.1');

          // A 6 MB upload passes; a body above client_max_body_size is refused by nginx itself.
          const upload = await fetch(`${url}/v1/upload`, { method: 'POST', body: Buffer.alloc(6 * 1024 * 1024) });
          expect(upload.status).toBe(200);
          const tooBig = await fetch(`${url}/v1/upload`, { method: 'POST', body: Buffer.alloc(40 * 1024 * 1024) });
          expect(tooBig.status).toBe(413);
        } finally {
          try {
            process.kill(-nginx.pid!, 'SIGKILL');
          } catch {
            // gone
          }
          await new Promise((r) => upstream.close(r));
        }
      },
    );
  });

  describe('compose.yml', () => {
    const compose = read('compose.yml');
    const services = composeServices(compose);

    it('has the API nodes, the worker, MariaDB, Redis, MinIO with its bucket job and nginx', () => {
      expect([...services.keys()].sort()).toEqual(expect.arrayContaining(SERVICES));
      expect(services.get('mariadb')).toMatch(/image: mariadb:11/);
      expect(services.get('mariadb')).toMatch(/healthcheck:/);
      expect(services.get('redis')).toMatch(/image: redis:7-alpine/);
      expect(services.get('redis')).toMatch(/--appendonly['"]?,\s*['"]?yes/);
      expect(services.get('minio')).toMatch(/image: minio\/minio/);
      expect(services.get('minio')).toMatch(/minio server \/data/);
      expect(services.get('minio-init')).toMatch(/image: minio\/mc/);
      expect(services.get('minio-init')).toMatch(/mc mb/);
      expect(services.get('nginx')).toMatch(/image: nginx:1\.27-alpine/);
      expect(services.get('nginx')).toMatch(/'8080:8080'/);
      expect(services.get('nginx')).toMatch(/\.\/nginx\/nginx\.conf:\/etc\/nginx\/nginx\.conf/);
      expect(services.get('nginx')).toMatch(/\.\/nginx\/esign-proxy\.conf:\/etc\/nginx\/esign-proxy\.conf/);
    });

    it('builds the api target for the nodes and the worker target for the worker, with the example environment', () => {
      const anchor = /^x-api: &api\n((?: {2}.*\n)+)/m.exec(compose)?.[1] ?? '';
      expect(anchor).toMatch(/dockerfile: docker\/Dockerfile/);
      expect(anchor).toMatch(/target: api\b/);
      for (const node of ['api-1', 'api-2']) expect(services.get(node)).toMatch(/<<: \*api/);
      expect(services.get('worker')).toMatch(/target: worker\b/);
      expect(compose).toMatch(/path: example\.env/);
      // Migrations run once: the second node starts when the first is healthy.
      expect(services.get('api-2')).toMatch(/api-1: \{ condition: service_healthy \}/);
    });

    it("trusts nginx's fixed address as the proxy", () => {
      const address = /ipv4_address: ([\d.]+)/.exec(services.get('nginx') ?? '')?.[1];
      expect(address).toBeDefined();
      expect(envFile(read('example.env')).TRUSTED_PROXIES).toBe(address);
    });
  });

  describe('example.env', () => {
    const env = envFile(read('example.env'));

    it("holds only the product's variables, and they are valid", () => {
      const known = new Set<string>(CONFIG_VARIABLES);
      expect(Object.keys(env).filter((k) => !known.has(k))).toEqual([]);
      const config = loadConfig(env, '/');
      expect(config.env).toBe('production');
      expect(config.publicUrl).toBe('http://localhost:8080');
      expect(config.database.engine).toBe('mysql');
      expect(config.redis).not.toBeNull();
      expect(config.storage).toMatchObject({ kind: 's3', bucket: 'esign-docs', forcePathStyle: true });
    });

    it('has placeholders, not secrets', () => {
      expect(env.DATABASE_URL).toContain('CHANGE_ME');
      expect(env.S3_SECRET_ACCESS_KEY).toContain('CHANGE_ME');
      expect(env.METRICS_TOKEN).toContain('CHANGE_ME');
    });
  });

  describe('Dockerfile', () => {
    const stages = dockerStages(read('Dockerfile'));

    it('has the targets api and worker, built on node:20-bookworm-slim', () => {
      const names = stages.map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(['api', 'worker']));
      expect(stages[0].from).toBe('node:20-bookworm-slim');
    });

    it.each([
      ['api', 'api/dist/main.js'],
      ['worker', 'api/dist/worker.js'],
    ])('the %s target runs %s as a user that is not root', (target, script) => {
      const user = directive(stages, target, 'USER')?.split(/\s+/)[1];
      expect(user).toBeDefined();
      expect(user).not.toMatch(/^(root|0)(:|$)/);
      expect(directive(stages, target, 'CMD')).toContain(script);
    });

    it('the api target exposes 3000 and checks /health', () => {
      expect(directive(stages, 'api', 'EXPOSE')).toBe('EXPOSE 3000');
      expect(directive(stages, 'api', 'HEALTHCHECK')).toContain('/health');
    });

    it('installs the packages the API runs (ffmpeg) and only production dependencies at run time', () => {
      const text = read('Dockerfile');
      expect(text).toMatch(/ffmpeg/);
      expect(text).toMatch(/fonts-dejavu-core/);
      expect(text).toMatch(/npm ci --omit=dev|npm prune --omit=dev/);
      expect(text).toMatch(/ONNXRUNTIME_NODE_INSTALL=skip/);
    });
  });
});
