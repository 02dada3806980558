import { Messages } from '@esign/contract';
import { Card, CardContent } from '@mui/material';
import PageHeading from '../components/PageHeading';

/** /drafts: the frame of the draft requests list (filled in a later step). */
const Drafts = () => (
  <Card sx={{ mt: 2 }}>
    <CardContent>
      <PageHeading title={Messages.draftRequests} />
    </CardContent>
  </Card>
);

export default Drafts;
