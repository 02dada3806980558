import { Messages, StaffRoutes } from '@esign/contract';
import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Card, CardContent } from '@mui/material';
import { useNavigate } from 'react-router-dom';
import ModeBadge from '../components/ModeBadge';
import PageHeading from '../components/PageHeading';

/** /dashboard: the frame of the requests list (the list itself is a later step). */
const Dashboard = () => {
  const navigate = useNavigate();
  return (
    <Box sx={{ pb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, my: 2 }}>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => navigate(StaffRoutes.requestInitiate)}>
          {Messages.initiateContract}
        </Button>
        <ModeBadge />
      </Box>
      <Card>
        <CardContent>
          <PageHeading title={Messages.requestsDetails} />
        </CardContent>
      </Card>
    </Box>
  );
};

export default Dashboard;
