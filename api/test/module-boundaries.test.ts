import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Imports between the API's modules run one way (ARCHITECTURE.md, "Modules and the one-way rule"; issue 20). The lint
 * rule of eslint.config.mjs (import-x/no-restricted-paths, built from api/module-layers.cjs) is run through ESLint's
 * Node API on fixture texts linted as if they were files of api/src: a backward import fails, a legal one passes, and
 * the listed exceptions excuse exactly their file and module. ESLint loads its flat config as an ES module, which
 * Jest's module loader cannot, so the fixtures are linted in a child process.
 */
const ROOT = resolve(__dirname, '..', '..');
const RULE = 'import-x/no-restricted-paths';

interface Fixture {
  /** Where the text is linted as if it were, from the repository's root; the file need not exist. */
  path: string;
  code: string;
}
interface Finding {
  ruleId: string | null;
  message: string;
  line: number;
}

const LINT = `
import { ESLint } from 'eslint';
const fixtures = JSON.parse(process.env.FIXTURES);
const eslint = new ESLint({ cwd: process.env.ROOT });
const out = [];
for (const { path, code } of fixtures) {
  const [result] = await eslint.lintText(code, { filePath: path, warnIgnored: true });
  out.push(result.messages.map(({ ruleId, message, line }) => ({ ruleId, message, line })));
}
process.stdout.write(JSON.stringify(out));
`;

/** The findings of the root ESLint configuration for each fixture, in order. */
function lint(fixtures: Fixture[]): Finding[][] {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', LINT], {
    cwd: ROOT,
    env: { ...process.env, ROOT, FIXTURES: JSON.stringify(fixtures) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`eslint failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Finding[][];
}

const boundaryFindings = (findings: Finding[]) => findings.filter((f) => f.ruleId === RULE);

describe('module boundaries (import-x/no-restricted-paths)', () => {
  const fixtures: Record<string, Fixture> = {
    // documents sits below requests: a type from a request entity is a backward import.
    backwardType: {
      path: 'api/src/modules/documents/pdf/fixture.ts',
      code: "import type { RequestEntity } from '../../requests/request.entity';\nexport type Row = RequestEntity;\n",
    },
    // A value, a dynamic import and a re-export are imports too.
    backwardOtherForms: {
      path: 'api/src/modules/notifications/fixture.ts',
      code:
        "import { RequestLifecycle } from '../requests/request-lifecycle.service';\n" +
        "export const load = () => import('../signing/pdf/engine');\n" +
        "export { WebhooksService } from '../webhooks/webhooks.service';\n" +
        'export const service = RequestLifecycle;\n',
    },
    // Downwards, and to the leaves: legal.
    legal: {
      path: 'api/src/modules/documents/pdf/fixture.ts',
      code:
        "import { AppError } from '../../../common/app-error';\n" +
        "import type { DocumentStorage } from '../../storage/document-storage';\n" +
        "import { Messages } from '@esign/contract';\n" +
        "import type { PageGeometry } from './geometry';\n" +
        'export type Both = [DocumentStorage, PageGeometry];\n' +
        "export const error = () => new AppError('VALIDATION_FAILED', Messages.invalidRequest);\n",
    },
    legalFromAbove: {
      path: 'api/src/modules/recipients/fixture.ts',
      code:
        "import { refuseAction } from '../requests/rules';\n" +
        "import { SealQueue } from '../requests/seal.queue';\n" +
        'export const both = [refuseAction, SealQueue];\n',
    },
    // The tenant guard's listed exception excuses its imports of auth, and only those.
    exceptionExcused: {
      path: 'api/src/common/auth/tenant.guard.ts',
      code: "import { AuthService } from '../../modules/auth/auth.service';\nexport const s = AuthService;\n",
    },
    exceptionNotWider: {
      path: 'api/src/common/auth/tenant.guard.ts',
      code: "import { SignerOtpService } from '../../modules/recipients/signer-otp.service';\nexport const s = SignerOtpService;\n",
    },
    // Signing is an engine: it imports nothing of requests (the seal job's orchestration is the request's).
    signingToRequests: {
      path: 'api/src/modules/signing/pdf/engine.ts',
      code: "import type { PartyEntity } from '../../requests/party.entity';\nexport type P = PartyEntity;\n",
    },
    exceptionNotOtherFiles: {
      path: 'api/src/common/auth/fixture.ts',
      code: "import { AuthService } from '../../modules/auth/auth.service';\nexport const s = AuthService;\n",
    },
    // The leaves import no module.
    leaf: {
      path: 'api/src/common/fixture.ts',
      code: "import type { RequestEntity } from '../modules/requests/request.entity';\nexport type R = RequestEntity;\n",
    },
  };
  let findings: Record<string, Finding[]>;

  beforeAll(() => {
    const names = Object.keys(fixtures);
    const results = lint(names.map((n) => fixtures[n]));
    findings = Object.fromEntries(names.map((n, i) => [n, results[i]]));
  }, 120_000);

  it('fails a backward import, naming the layer', () => {
    expect(findings.backwardType).toEqual([
      {
        ruleId: RULE,
        line: 1,
        message: expect.stringContaining('documents is in layer') as unknown as string,
      },
    ]);
    expect(findings.backwardType[0].message).toContain('"../../requests/request.entity"');
  });

  it('fails value imports, dynamic imports and re-exports that go up or sideways', () => {
    // requests and signing are above notifications; webhooks is in its layer.
    expect(boundaryFindings(findings.backwardOtherForms).map((f) => f.line)).toEqual([1, 2, 3]);
  });

  it('passes imports downwards, to common and to the contract', () => {
    expect(findings.legal).toEqual([]);
    expect(findings.legalFromAbove).toEqual([]);
  });

  it('excuses a listed exception for its file and the module named, nothing more', () => {
    expect(boundaryFindings(findings.exceptionExcused)).toEqual([]);
    expect(boundaryFindings(findings.exceptionNotWider)).toHaveLength(1);
    expect(boundaryFindings(findings.exceptionNotOtherFiles)).toHaveLength(1);
    expect(boundaryFindings(findings.signingToRequests)).toHaveLength(1);
  });

  it('keeps common, config and database free of modules', () => {
    expect(boundaryFindings(findings.leaf)).toHaveLength(1);
  });

  it('agrees with scripts/module-graph.mjs: every module has a layer, every backward import is listed', () => {
    const run = spawnSync(process.execPath, ['scripts/module-graph.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
