import { RETENTION_AUDIT_EVENTS } from '@esign/contract';
import type { RequestListItem } from '@esign/contract';
import { Alert, Box, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useDataProvider, useRecordContext } from 'react-admin';
import type { ConsoleDataProvider } from '../../dataProvider';
import { useFormatTime } from '../../organisation/OrganisationContext';
import { useText } from '../../i18n/useText';
import { DocLink } from '../PartyTable';
import Section from './Section';

/** The newest signed document: the last party's that has one (each signer's revision contains the ones before). */
const latestSigned = (record: RequestListItem): string | null =>
  [...record.data].reverse().find((party) => party.downloadUrl)?.downloadUrl ?? null;

/**
 * An archived request (issue 24: retention deleted its files): no links, since they would answer 404; the SHA-256 of
 * the original and the signed document as retention wrote them in the audit trail (the trail's own query, shared with
 * the timeline).
 */
const Archived = ({ record }: { record: RequestListItem }) => {
  const t = useText();
  const formatTime = useFormatTime();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const { data } = useQuery({
    queryKey: ['requests', 'audit', record.refId],
    queryFn: () => dataProvider.audit(record.refId),
  });
  const deletion = data?.events.findLast((event) => event.type === RETENTION_AUDIT_EVENTS.filesDeleted)?.data;
  const hashes = [
    ['console.request.archivedOriginal', deletion?.file_sha256],
    ['console.request.archivedSigned', deletion?.signed_file_sha256],
  ] as const;
  return (
    <Alert severity="info" data-testid="archived-documents">
      <Typography>{t('console.request.archivedText', { date: formatTime(record.files_deleted_at ?? '') })}</Typography>
      <Typography>{t('console.request.archivedHashes')}</Typography>
      <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
        {hashes
          .filter(([, hash]) => typeof hash === 'string')
          .map(([label, hash]) => (
            <li key={label} data-testid="archived-hash">
              {t(label)}:{' '}
              <Typography component="span" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
                {String(hash)}
              </Typography>
            </li>
          ))}
      </Box>
    </Alert>
  );
};

/**
 * The request's documents, through the links the API gives (signed, expiring): the original, the signed document
 * (its newest revision), the certificate of completion (appended to the signed document once everyone signed) and
 * the verification report's page.
 */
const DocumentsPanel = () => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  if (!record) return null;
  if (record.archived)
    return (
      <Section title={t('console.request.documents')} testId="request-documents">
        <Archived record={record} />
      </Section>
    );
  const original = record.data[0]?.uploadUrl;
  const signed = latestSigned(record);
  const completed = record.request_status === 'completed';
  return (
    <Section title={t('console.request.documents')} testId="request-documents">
      <Box component="ul" sx={{ m: 0, pl: 2.5, '& li': { my: 0.5 } }}>
        {original && (
          <li>
            <DocLink href={original} label={t('console.request.originalDocument')} />
          </li>
        )}
        <li data-testid="signed-document">
          {signed ? (
            <DocLink href={signed} label={t('console.request.signedDocument')} />
          ) : (
            <Typography component="span" color="text.secondary">
              {t('console.request.signedDocument')}: {t('console.request.signedDocumentPending')}
            </Typography>
          )}
        </li>
        <li data-testid="completion-certificate">
          {completed && signed ? (
            <>
              <DocLink href={signed} label={t('console.request.certificate')} />{' '}
              <Typography component="span" variant="body2" color="text.secondary">
                {t('console.request.certificateHelp')}
              </Typography>
            </>
          ) : (
            <Typography component="span" color="text.secondary">
              {t('console.request.certificate')}: {t('console.request.certificatePending')}
            </Typography>
          )}
        </li>
        {record.verification_url && (
          <li>
            <DocLink href={record.verification_url} label={t('console.request.verificationPage')} />
          </li>
        )}
      </Box>
    </Section>
  );
};

export default DocumentsPanel;
