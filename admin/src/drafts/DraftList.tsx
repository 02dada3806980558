import { StaffRoutes } from '@esign/contract';
import type { DraftListItem } from '@esign/contract';
import EditIcon from '@mui/icons-material/Edit';
import { Button, Card, CardContent, Chip } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import NoData from '../components/NoData';
import PageHeading from '../components/PageHeading';
import { useText } from '../i18n/useText';
import RequestGrid from '../requests/RequestGrid';
import { startEditingDraft } from '../session';

const DraftChip = (_props: { label?: string }) => {
  const t = useText();
  return <Chip size="small" label={t('esign.draft')} />;
};

/** 'Edit/Submit': the draft opens in Initiate Request (its Ref ID kept in local storage as refId, spec section 3). */
const EditSubmit = (_props: { label?: string }) => {
  const record = useRecordContext<DraftListItem>();
  const navigate = useNavigate();
  const t = useText();
  if (!record) return null;
  return (
    <Button
      size="small"
      variant="outlined"
      startIcon={<EditIcon />}
      onClick={(event) => {
        event.stopPropagation();
        startEditingDraft(record.refId);
        navigate(StaffRoutes.requestInitiate);
      }}
    >
      {t('esign.editSubmit')}
    </Button>
  );
};

/**
 * /drafts (spec section 2): requests saved and never processed, searched like the dashboard (the search box stays
 * when there are none), edited through Initiate. The drafts resource's list.
 */
const DraftList = () => {
  const t = useText();
  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={t('esign.draftRequests')} />
        <RequestGrid
          resource="drafts"
          title={t('esign.navDrafts')}
          duplicate={false}
          status={<DraftChip label="console.common.status" />}
          tail={<EditSubmit label="console.common.actions" />}
          empty={<NoData text={t('esign.noRecordsFound')} />}
        />
      </CardContent>
    </Card>
  );
};

export default DraftList;
