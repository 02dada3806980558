import { Messages } from '@esign/contract';
import { Card, CardContent } from '@mui/material';
import PageHeading from '../components/PageHeading';

/** /request-initiate: start a request or edit a draft (the form comes in a later step). */
const RequestInitiate = () => (
  <Card sx={{ mt: 2 }}>
    <CardContent>
      <PageHeading title={Messages.initiateRequestHeading} />
    </CardContent>
  </Card>
);

export default RequestInitiate;
