import { StaffRoutes } from '@esign/contract';
import AddIcon from '@mui/icons-material/Add';
import DescriptionOutlinedIcon from '@mui/icons-material/DescriptionOutlined';
import { Box, Button, Card, CardContent } from '@mui/material';
import { useListContext } from 'react-admin';
import type { MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import ModeBadge from '../components/ModeBadge';
import NoData from '../components/NoData';
import PageHeading from '../components/PageHeading';
import OutboxLink from '../outbox/OutboxLink';
import PartyTable from './PartyTable';
import ProgressField from './ProgressField';
import RequestGrid from './RequestGrid';
import WatchdogBanner from '../watchdog/WatchdogBanner';
import { useText } from '../i18n/useText';
import { clearUploadFlow } from '../session';

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
  const t = useText();
  const searching = Object.values(filterValues ?? {}).some((value) => value !== undefined && value !== '');
  if (searching) return <NoData text={t('esign.noRecordsFound')} />;
  return (
    <NoData text={t('esign.noRequestsYet')}>
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
        {t('esign.initiateContract')}
      </Button>
    </NoData>
  );
};

/**
 * /dashboard (spec section 2): the requests, newest first (by the time each was sent), as expandable rows with their
 * progress; the party table, resend, delete and duplicate; 5 or 10 a page. With no requests at all the search box and
 * the title stay, above the no-data picture. An administrator sees the watchdog's banner above the list when something is
 * stuck. The requests resource's list (its own address, /requests, leads here).
 */
const RequestList = () => {
  const navigate = useNavigate();
  const initiate = useInitiate();
  const t = useText();
  return (
    <Box sx={{ pb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, my: 2, flexWrap: 'wrap' }}>
        <Button variant="contained" startIcon={<AddIcon />} onClick={initiate}>
          {t('esign.initiateContract')}
        </Button>
        <Button startIcon={<DescriptionOutlinedIcon />} onClick={() => navigate(StaffRoutes.templates)}>
          {t('esign.templatesHeading')}
        </Button>
        <OutboxLink />
        <Box sx={{ flex: 1 }} />
        <ModeBadge />
      </Box>
      <WatchdogBanner />
      <Card>
        <CardContent>
          <PageHeading title={t('esign.requestsDetails')} />
          <RequestGrid
            resource="requests"
            title={t('esign.navDashboard')}
            duplicate
            tail={<ProgressField label="console.common.progress" />}
            expand={<PartyTable details />}
            empty={<NoRows />}
            testId="requests"
          />
        </CardContent>
      </Card>
    </Box>
  );
};

export default RequestList;
