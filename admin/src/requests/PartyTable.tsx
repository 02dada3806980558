import type { PartyView, RequestListItem } from '@esign/contract';
import { Box, Button, Link, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { orgId, v1 } from '../api';
import type { TextKey } from '../i18n/catalogue';
import HeadRow from '../components/HeadRow';
import { useText } from '../i18n/useText';
import { useFormatTime } from '../organisation/OrganisationContext';
import { requestShowPath } from './paths';

/** The columns of the spec's party table (section 2, Dashboard). */
const COLUMNS: TextKey[] = [
  'console.parties.partyName',
  'console.parties.emailAddress',
  'console.parties.originalDocumentLink',
  'console.parties.signedDocumentLink',
  'console.parties.signUrl',
  'console.common.status',
  'console.common.actions',
];

export const DocLink = ({ href, label }: { href: string; label: string }) => (
  <Link href={href} target="_blank" rel="noopener noreferrer">
    {label}
  </Link>
);

/** Sends the invitation again (only for a party in progress), with the catalogue's toasts. */
export const ResendInvite = ({ party }: { party: PartyView }) => {
  const notify = useNotify();
  const refresh = useRefresh();
  const t = useText();
  const [busy, setBusy] = useState(false);
  const resend = async () => {
    setBusy(true);
    notify(t('esign.sendingInvite'), { type: 'info' });
    try {
      await v1(`/v1/resend_invite/${encodeURIComponent(orgId())}/${party.refId}/${party.order}`);
      notify(t('esign.inviteSent'), { type: 'success', autoHideDuration: 2000 });
      refresh();
    } catch {
      notify(t('esign.inviteFailed'), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button size="small" variant="outlined" disabled={busy} onClick={() => void resend()}>
      {t('esign.resendInvite')}
    </Button>
  );
};

/** The party's status in upper case; for a rejection, when it happened and the remark the party gave (issue 18). */
export const PartyStatus = ({ party }: { party: PartyView }) => {
  const formatTime = useFormatTime();
  const t = useText();
  const rejected = party.status === 'rejected';
  return (
    <>
      <Typography
        variant="body2"
        component="span"
        sx={rejected ? { color: 'error.main', fontWeight: 700 } : undefined}
        data-testid="party-status"
      >
        {party.status.toUpperCase()}
      </Typography>
      {rejected && party.rejected_at && (
        <Typography variant="caption" component="div" color="text.secondary" data-testid="rejected-at">
          {t('esign.partyRejectedOn', { date: formatTime(party.rejected_at) })}
        </Typography>
      )}
      {rejected && party.remark && (
        <Typography
          variant="body2"
          component="div"
          data-testid="reject-remark"
          sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxWidth: 360 }}
        >
          {t('esign.partyRemark', { remark: party.remark })}
        </Typography>
      )}
    </>
  );
};

/**
 * The expanded row of a request or a draft: one line per party (spec section 2, Dashboard); under it, for a completed
 * request, the link to its verification report (issue 19: signatures, levels, timestamps, revocation data), and on the
 * dashboard (`details`) the link to the request's page (issue 22), so the row itself shows what the spec says.
 */
const PartyTable = ({ details = false }: { details?: boolean }) => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  if (!record) return null;
  const report = record.request_status === 'completed' ? record.verification_url : null;
  return (
    <>
      <Parties record={record} />
      {(report || details) && (
        <Box sx={{ px: 2, py: 1, bgcolor: 'background.default', display: 'flex', gap: 3, flexWrap: 'wrap' }}>
          {report && (
            <Box component="span" data-testid="verification-report">
              <DocLink href={report} label={t('esign.verificationReport')} />
            </Box>
          )}
          {details && (
            <Link component={RouterLink} to={requestShowPath(record.refId)} data-testid="request-page-link">
              {t('console.request.detailsLink')}
            </Link>
          )}
        </Box>
      )}
    </>
  );
};

const Parties = ({ record }: { record: RequestListItem }) => {
  const t = useText();
  return (
    <Table size="small" data-testid="party-table" sx={{ bgcolor: 'background.default' }}>
      <HeadRow columns={COLUMNS} />
      <TableBody>
        {record.data.map((party) => (
          <TableRow key={party.order} data-testid={`party-${party.order}`}>
            <TableCell>{party.name}</TableCell>
            <TableCell>{party.email}</TableCell>
            <TableCell>
              <DocLink href={party.uploadUrl} label={t('console.parties.originalDocument')} />
            </TableCell>
            <TableCell>
              {party.downloadUrl ? (
                <DocLink href={party.downloadUrl} label={t('console.parties.signedDocument')} />
              ) : (
                t('esign.notGenerated')
              )}
            </TableCell>
            <TableCell>
              {party.sign_url ? <DocLink href={party.sign_url} label={t('console.parties.signUrl')} /> : '-'}
            </TableCell>
            <TableCell>
              <PartyStatus party={party} />
            </TableCell>
            <TableCell>{party.status === 'in-progress' ? <ResendInvite party={party} /> : '-'}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
};

export default PartyTable;
