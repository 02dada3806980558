import { Messages, StaffRoutes } from '@esign/contract';
import AddIcon from '@mui/icons-material/Add';
import DescriptionOutlinedIcon from '@mui/icons-material/DescriptionOutlined';
import { Box, Button, Card, CardContent } from '@mui/material';
import { Datagrid, List, Pagination, SearchInput, TextField, useListContext } from 'react-admin';
import type { MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import ModeBadge from '../components/ModeBadge';
import NoData from '../components/NoData';
import PageHeading from '../components/PageHeading';
import TimeField from '../components/TimeField';
import OutboxLink from '../outbox/OutboxLink';
import BulkActions from '../requests/BulkActions';
import PartyTable from '../requests/PartyTable';
import ProgressField from '../requests/ProgressField';
import { clearUploadFlow } from '../session';

const PAGE_SIZES = [5, 10];

/** Search: digits match a Ref ID exactly, other text file names (the server decides). */
const filters = [<SearchInput key="q" source="q" alwaysOn placeholder={Messages.searchPlaceholder} />];

/** Starts a new request (the upload flow's values of an earlier one are dropped). */
const useInitiate = () => {
  const navigate = useNavigate();
  return () => {
    clearUploadFlow();
    navigate(StaffRoutes.requestInitiate);
  };
};

/**
 * No rows: a search that finds nothing says so ('No records found.'); an organisation without requests gets the
 * no-data picture with its caption and the way to start one.
 */
const NoRows = () => {
  const { filterValues } = useListContext();
  const initiate = useInitiate();
  const searching = Object.values(filterValues ?? {}).some((value) => value !== undefined && value !== '');
  if (searching) return <NoData text={Messages.noRecordsFound} />;
  return (
    <NoData text={Messages.noRequestsYet}>
      {/* A link (it goes to a page), so the toolbar's 'Initiate Contract' stays the one button of that name. */}
      <Button
        component="a"
        href={StaffRoutes.requestInitiate}
        variant="contained"
        startIcon={<AddIcon />}
        data-testid="no-data-initiate"
        onClick={(event: MouseEvent) => {
          event.preventDefault();
          initiate();
        }}
      >
        {Messages.initiateContract}
      </Button>
    </NoData>
  );
};

/**
 * /dashboard (spec section 2): the requests, newest first (by the time each was sent), as expandable rows with their
 * progress; the party table, resend, delete and duplicate; 5 or 10 a page. With no requests at all the search box and
 * the title stay, above the no-data picture.
 */
const Dashboard = () => {
  const navigate = useNavigate();
  const initiate = useInitiate();
  return (
    <Box sx={{ pb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, my: 2, flexWrap: 'wrap' }}>
        <Button variant="contained" startIcon={<AddIcon />} onClick={initiate}>
          {Messages.initiateContract}
        </Button>
        <Button startIcon={<DescriptionOutlinedIcon />} onClick={() => navigate(StaffRoutes.templates)}>
          {Messages.templatesHeading}
        </Button>
        <OutboxLink />
        <Box sx={{ flex: 1 }} />
        <ModeBadge />
      </Box>
      <Card>
        <CardContent>
          <PageHeading title={Messages.requestsDetails} />
          <List
            resource="requests"
            title={Messages.navDashboard}
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
              bulkActionButtons={<BulkActions />}
              empty={<NoRows />}
              data-testid="requests"
            >
              <TextField source="refId" label="Ref ID" sortable={false} />
              <TextField source="filename" label="File name" sortable={false} />
              <TimeField source="timestamp" label="Timestamp" />
              <ProgressField label="Progress" />
            </Datagrid>
          </List>
        </CardContent>
      </Card>
    </Box>
  );
};

export default Dashboard;
