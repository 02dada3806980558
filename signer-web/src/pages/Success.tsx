import { useParams } from 'react-router-dom';
import { PleaseWait, Shell } from '../components';

/** /success/{orgId}/{requestId}: completion page. Its server calls come in a later step. */
const Success = () => {
  const { orgId } = useParams();
  return (
    <Shell orgId={orgId}>
      <PleaseWait />
    </Shell>
  );
};

export default Success;
