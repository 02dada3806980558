import { RECIPIENT_TYPES } from '@esign/contract';
import type { PartyView, RequestListItem } from '@esign/contract';
import { LANGUAGE_NAMES } from '@esign/contract';
import { Table, TableBody, TableCell, TableContainer, TableRow, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import HeadRow from '../../components/HeadRow';
import type { TextKey } from '../../i18n/catalogue';
import { useMessageText, useText } from '../../i18n/useText';
import { useFormatTime } from '../../organisation/OrganisationContext';
import { PartyStatus, ResendInvite } from '../PartyTable';
import Section from './Section';

const [NEEDS_TO_SIGN, RECEIVES_COPY] = RECIPIENT_TYPES;

/** When the party signed (or rejected: PartyStatus says when); '-' before. */
const PartyTime = ({ party }: { party: PartyView }) => {
  const t = useText();
  const formatTime = useFormatTime();
  if (!party.signed_at) return <>-</>;
  return <span data-testid="signed-at">{t('console.request.signedOn', { date: formatTime(party.signed_at) })}</span>;
};

/** The request's parties in signing order: who, how they sign, their status, method and when they signed. */
const PartiesPanel = () => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  const messageText = useMessageText();
  if (!record) return null;
  const columns: TextKey[] = [
    'console.parties.partyName',
    'console.parties.emailAddress',
    'console.request.phone',
    'console.request.recipientType',
    'console.request.signatureType',
    'console.common.status',
    'console.request.method',
    'console.request.when',
    'console.common.actions',
  ];
  return (
    <Section title={t('console.request.parties')} testId="request-parties">
      <TableContainer>
        <Table size="small">
          <HeadRow columns={columns} />
          <TableBody>
            {record.data.map((party) => (
              <TableRow key={party.order} data-testid={`request-party-${party.order}`}>
                <TableCell>
                  {party.order}. {party.name}
                  {party.language && party.language !== 'en' && (
                    <Typography variant="caption" component="div" color="text.secondary" lang={party.language}>
                      {LANGUAGE_NAMES[party.language]}
                    </Typography>
                  )}
                </TableCell>
                <TableCell>{party.email}</TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{party.phoneNumber}</TableCell>
                <TableCell>{messageText(party.observer ? RECEIVES_COPY : NEEDS_TO_SIGN)}</TableCell>
                <TableCell>{party.signature_type ?? '-'}</TableCell>
                <TableCell>
                  <PartyStatus party={party} />
                </TableCell>
                <TableCell data-testid="party-method">
                  {party.sign_method === null || party.sign_method === undefined
                    ? '-'
                    : t(`console.methods.${party.sign_method}` as TextKey)}
                </TableCell>
                <TableCell>
                  <PartyTime party={party} />
                </TableCell>
                <TableCell>{party.status === 'in-progress' ? <ResendInvite party={party} /> : '-'}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Section>
  );
};

export default PartiesPanel;
