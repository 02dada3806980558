import type { RequestListItem, SignatureCheckView } from '@esign/contract';
import {
  Alert,
  Box,
  CircularProgress,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableRow,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { HttpError, useDataProvider, useRecordContext } from 'react-admin';
import { failureText } from '../../api';
import type { ConsoleDataProvider } from '../../dataProvider';
import type { TextKey } from '../../i18n/catalogue';
import HeadRow from '../../components/HeadRow';
import { useText } from '../../i18n/useText';
import { useFormatTime } from '../../organisation/OrganisationContext';
import Section from './Section';

const CHAIN: Record<SignatureCheckView['chain']['status'], TextKey> = {
  trusted: 'console.request.trusted',
  untrusted: 'console.request.untrusted',
  'not checked': 'console.request.notChecked',
};

/**
 * What the document's revocation data says of a signature's certificates, counted ('good (OCSP) × 3'); each
 * certificate by name is in the report's page.
 */
const revocationSummary = (statuses: SignatureCheckView['revocation']): string => {
  if (!statuses.length) return '-';
  const counts = new Map<string, number>();
  for (const r of statuses) {
    const label = `${r.status}${r.source ? ` (${r.source})` : ''}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, count]) => (count > 1 ? `${label} × ${count}` : label)).join(', ');
};

/** A verdict in words and colour (never colour alone). */
const Verdict = ({ ok, yes, no }: { ok: boolean; yes: string; no: string }) => (
  <Typography component="span" variant="body2" sx={{ color: ok ? 'success.dark' : 'error.main', fontWeight: 600 }}>
    {ok ? yes : no}
  </Typography>
);

/**
 * The signature verification report of the request's signed document (GET /api/requests/{refId}/verification), the
 * one `esign-cli verify` prints: the verdict, then each signature (signer, method, time, level, integrity, certificate
 * chain, timestamp, revocation data), the document timestamps, the trusted roots. Before anything is signed the API
 * has no document to check (404), and the page says so.
 */
const VerificationPanel = () => {
  const record = useRecordContext<RequestListItem>();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const t = useText();
  const formatTime = useFormatTime();
  const refId = record?.refId;
  const { data, error, isPending } = useQuery({
    queryKey: ['requests', 'verification', refId],
    queryFn: () => dataProvider.verification(refId as number),
    enabled: refId !== undefined,
    retry: false,
  });
  const nothingSigned = error instanceof HttpError && error.status === 404;
  return (
    <Section
      title={t('console.request.verification')}
      intro={t('console.request.verificationIntro')}
      testId="verification"
    >
      {isPending && <CircularProgress size={24} aria-label={t('console.request.verification')} />}
      {nothingSigned && (
        <Typography color="text.secondary">
          {/* An archived request has no document left to check (issue 24); its audit trail's verdict stays above. */}
          {record?.archived ? t('retention.filesDeleted') : t('console.request.verificationNone')}
        </Typography>
      )}
      {error && !nothingSigned && <Alert severity="error">{failureText(error)}</Alert>}
      {data && (
        <>
          <Alert severity={data.ok ? 'success' : 'error'} data-testid="verification-verdict" data-ok={data.ok}>
            {data.ok ? t('console.request.verificationOk') : t('console.request.verificationProblems')}
            {!data.ok && (
              <Box component="ul" sx={{ m: 0, pl: 2 }}>
                {data.problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
                {!data.audit.intact && <li>{t('console.request.chainBroken')}</li>}
              </Box>
            )}
          </Alert>
          <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1, overflowWrap: 'anywhere' }}>
            {data.filename} · {t('console.request.sha256', { hash: data.documentSha256 })} ·{' '}
            {t('console.request.checkedAt', { date: formatTime(data.checkedAt) })}
          </Typography>
          <TableContainer>
            <Table size="small" data-testid="signature-table">
              <HeadRow
                columns={[
                  'console.request.signature',
                  'console.request.signer',
                  'console.request.method',
                  'console.request.when',
                  'console.request.level',
                  'console.request.integrity',
                  'console.request.certificateChain',
                  'console.request.timestampColumn',
                  'console.request.revocation',
                  'console.common.status',
                ]}
              />
              <TableBody>
                {data.signatures.map((signature) => (
                  <TableRow key={signature.field} data-testid="signature-row">
                    <TableCell sx={{ fontFamily: 'monospace', fontSize: 13 }}>{signature.field}</TableCell>
                    <TableCell>{signature.signer ?? '-'}</TableCell>
                    <TableCell>{signature.method ?? '-'}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      {signature.signedAt ? formatTime(signature.signedAt) : '-'}
                    </TableCell>
                    <TableCell>{signature.level ?? '-'}</TableCell>
                    <TableCell>
                      <Verdict
                        ok={signature.integrity === 'ok'}
                        yes={t('console.request.intact')}
                        no={t('console.request.broken')}
                      />
                    </TableCell>
                    <TableCell>
                      <Verdict
                        ok={signature.chain.status === 'trusted'}
                        yes={t(CHAIN.trusted)}
                        no={t(CHAIN[signature.chain.status])}
                      />
                      {signature.chain.path.length > 0 && (
                        <Typography variant="caption" component="div" color="text.secondary">
                          {signature.chain.path.join(' → ')}
                        </Typography>
                      )}
                    </TableCell>
                    <TableCell>
                      {signature.timestamp?.time ? formatTime(signature.timestamp.time) : '-'}
                      {signature.timestamp?.tsa && (
                        <Typography variant="caption" component="div" color="text.secondary">
                          {signature.timestamp.tsa}
                        </Typography>
                      )}
                    </TableCell>
                    <TableCell>{revocationSummary(signature.revocation)}</TableCell>
                    <TableCell data-testid="signature-valid">
                      <Verdict
                        ok={signature.valid}
                        yes={t('console.request.valid')}
                        no={t('console.request.invalid')}
                      />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          {data.documentTimestamps.length > 0 && (
            <Box sx={{ mt: 2 }} data-testid="document-timestamps">
              <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 600 }}>
                {t('console.request.documentTimestamps')}
              </Typography>
              <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
                {data.documentTimestamps.map((stamp) => (
                  <li key={stamp.field}>
                    {stamp.time ? formatTime(stamp.time) : '-'} · {stamp.tsa ?? '-'} ·{' '}
                    <Verdict ok={stamp.valid} yes={t('console.request.valid')} no={t('console.request.invalid')} />
                  </li>
                ))}
              </Box>
            </Box>
          )}
          {data.trustAnchors.length > 0 && (
            <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
              {t('console.request.trustAnchors', { names: data.trustAnchors.join(', ') })}
            </Typography>
          )}
        </>
      )}
    </Section>
  );
};

export default VerificationPanel;
