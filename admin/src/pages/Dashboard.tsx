import { Messages, StaffRoutes } from '@esign/contract';
import AddIcon from '@mui/icons-material/Add';
import DescriptionOutlinedIcon from '@mui/icons-material/DescriptionOutlined';
import { Box, Button, Card, CardContent } from '@mui/material';
import { Datagrid, DateField, List, Pagination, SearchInput, TextField } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import ModeBadge from '../components/ModeBadge';
import NoData from '../components/NoData';
import PageHeading from '../components/PageHeading';
import OutboxLink from '../outbox/OutboxLink';
import BulkActions from '../requests/BulkActions';
import PartyTable from '../requests/PartyTable';
import ProgressField from '../requests/ProgressField';
import { clearUploadFlow } from '../session';

const PAGE_SIZES = [5, 10];

/** Search: digits match a Ref ID exactly, other text file names (the server decides). */
const filters = [<SearchInput key="q" source="q" alwaysOn placeholder={Messages.searchPlaceholder} />];

/**
 * /dashboard (spec section 2): the requests, newest first, as expandable rows with their progress; the party table,
 * resend, delete and duplicate; 5 or 10 a page.
 */
const Dashboard = () => {
  const navigate = useNavigate();
  return (
    <Box sx={{ pb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, my: 2, flexWrap: 'wrap' }}>
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          onClick={() => {
            clearUploadFlow();
            navigate(StaffRoutes.requestInitiate);
          }}
        >
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
            empty={<NoData />}
            disableSyncWithLocation
            storeKey={false}
            component="div"
          >
            <Datagrid
              rowClick="expand"
              expand={<PartyTable />}
              bulkActionButtons={<BulkActions />}
              empty={<NoData text={Messages.noRecordsFound} />}
              data-testid="requests"
            >
              <TextField source="refId" label="Ref ID" sortable={false} />
              <TextField source="filename" label="File name" sortable={false} />
              <DateField source="timestamp" label="Timestamp" showTime />
              <ProgressField label="Progress" />
            </Datagrid>
          </List>
        </CardContent>
      </Card>
    </Box>
  );
};

export default Dashboard;
