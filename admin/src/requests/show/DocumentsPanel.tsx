import type { RequestListItem } from '@esign/contract';
import { Box, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { useText } from '../../i18n/useText';
import { DocLink } from '../PartyTable';
import Section from './Section';

/** The newest signed document: the last party's that has one (each signer's revision contains the ones before). */
const latestSigned = (record: RequestListItem): string | null =>
  [...record.data].reverse().find((party) => party.downloadUrl)?.downloadUrl ?? null;

/**
 * The request's documents, through the links the API gives (signed, expiring): the original, the signed document
 * (its newest revision), the certificate of completion (appended to the signed document once everyone signed) and
 * the verification report's page.
 */
const DocumentsPanel = () => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  if (!record) return null;
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
