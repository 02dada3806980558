import { useParams } from 'react-router-dom';
import { PleaseWait, Shell } from '../components';

/** /failed/{orgId}/{requestId}: failure page. Its server calls (and the `email` query flag) come in a later step. */
const Failed = () => {
  const { orgId } = useParams();
  return (
    <Shell orgId={orgId}>
      <PleaseWait />
    </Shell>
  );
};

export default Failed;
