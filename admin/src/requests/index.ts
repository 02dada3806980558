import AssignmentOutlinedIcon from '@mui/icons-material/AssignmentOutlined';
import RequestsListRoute from './RequestsListRoute';
import RequestShow from './show/RequestShow';

/**
 * The requests resource (GET /api/requests, /api/requests/{refId}). Its list is the specification's dashboard, at
 * /dashboard (App's custom routes render RequestList there): the resource's own list address leads to it. A request's
 * page is its show route, /requests/{refId}/show.
 */
export default {
  list: RequestsListRoute,
  show: RequestShow,
  icon: AssignmentOutlinedIcon,
  recordRepresentation: 'refId',
};
export { default as RequestList } from './RequestList';
export { default as RequestInitiate } from './initiate/RequestInitiate';
export { default as Upload } from './placement/Upload';
export { default as MailSent } from './MailSent';
