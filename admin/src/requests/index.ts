import AssignmentOutlinedIcon from '@mui/icons-material/AssignmentOutlined';
import RequestsListRoute from './RequestsListRoute';

/**
 * The requests resource (GET /api/requests, /api/requests/{refId}). Its list is the specification's dashboard, at
 * /dashboard (App's custom routes render RequestList there): the resource's own list address leads to it.
 */
export default {
  list: RequestsListRoute,
  icon: AssignmentOutlinedIcon,
  recordRepresentation: 'refId',
};
export { default as RequestList } from './RequestList';
export { default as RequestInitiate } from './initiate/RequestInitiate';
export { default as Upload } from './placement/Upload';
export { default as MailSent } from './MailSent';
