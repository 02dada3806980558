import { Messages } from '@esign/contract';
import { Card, CardContent } from '@mui/material';
import PageHeading from '../components/PageHeading';

/** /upload: signature box placement (the PDF and the boxes come in a later step). */
const Upload = () => (
  <Card sx={{ mt: 2 }}>
    <CardContent>
      <PageHeading title={Messages.placementHeading} />
    </CardContent>
  </Card>
);

export default Upload;
