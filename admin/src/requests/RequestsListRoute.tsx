import { StaffRoutes } from '@esign/contract';
import { Navigate } from 'react-router-dom';

/** /requests, the resource's list address: the requests list is the specification's /dashboard. */
const RequestsListRoute = () => <Navigate to={StaffRoutes.dashboard} replace />;

export default RequestsListRoute;
