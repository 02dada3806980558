import DraftsIcon from '@mui/icons-material/Drafts';
import DraftList from './DraftList';

/** The drafts resource (GET /api/drafts): its list is the specification's /drafts; a draft is edited on Initiate. */
export default {
  list: DraftList,
  icon: DraftsIcon,
  recordRepresentation: 'refId',
};
