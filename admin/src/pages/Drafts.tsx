import { Messages, StaffRoutes } from '@esign/contract';
import type { DraftListItem } from '@esign/contract';
import EditIcon from '@mui/icons-material/Edit';
import { Button, Card, CardContent, Chip } from '@mui/material';
import { Datagrid, List, Pagination, SearchInput, TextField, useRecordContext } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import NoData from '../components/NoData';
import PageHeading from '../components/PageHeading';
import TimeField from '../components/TimeField';
import BulkActions from '../requests/BulkActions';
import PartyTable from '../requests/PartyTable';
import { startEditingDraft } from '../session';

const PAGE_SIZES = [5, 10];
const filters = [<SearchInput key="q" source="q" alwaysOn placeholder={Messages.searchPlaceholder} />];

const DraftChip = (_props: { label?: string }) => <Chip size="small" label={Messages.draft} />;

/** 'Edit/Submit': the draft opens in Initiate Request (its Ref ID kept in local storage as refId, spec section 3). */
const EditSubmit = (_props: { label?: string }) => {
  const record = useRecordContext<DraftListItem>();
  const navigate = useNavigate();
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
      {Messages.editSubmit}
    </Button>
  );
};

/**
 * /drafts (spec section 2): requests saved and never processed, searched like the dashboard (the search box stays
 * when there are none), edited through Initiate.
 */
const Drafts = () => (
  <Card sx={{ my: 2 }}>
    <CardContent>
      <PageHeading title={Messages.draftRequests} />
      <List
        resource="drafts"
        title={Messages.navDrafts}
        actions={false}
        filters={filters}
        perPage={PAGE_SIZES[0]}
        pagination={<Pagination rowsPerPageOptions={PAGE_SIZES} />}
        sort={{ field: 'timestamp', order: 'DESC' }}
        empty={false}
        disableSyncWithLocation
        storeKey={false}
        component="div"
      >
        <Datagrid
          rowClick="expand"
          expand={<PartyTable />}
          bulkActionButtons={<BulkActions duplicate={false} />}
          empty={<NoData text={Messages.noRecordsFound} />}
        >
          <TextField source="refId" label="Ref ID" sortable={false} />
          <DraftChip label="Status" />
          <TextField source="filename" label="File name" sortable={false} />
          <TimeField source="timestamp" label="Timestamp" />
          <EditSubmit label="Actions" />
        </Datagrid>
      </List>
    </CardContent>
  </Card>
);

export default Drafts;
