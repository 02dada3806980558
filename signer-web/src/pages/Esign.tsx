import { useParams } from 'react-router-dom';
import { PleaseWait, Shell } from '../components';

/** /esign/{orgId}/{refId}/{order}: the recipient signing page. The viewer and the signing flow come in a later step. */
const Esign = () => {
  const { orgId } = useParams();
  return (
    <Shell orgId={orgId}>
      <PleaseWait />
    </Shell>
  );
};

export default Esign;
