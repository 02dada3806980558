import { Limits, StaffRoutes } from '@esign/contract';
import { Admin, CustomRoutes, Notification, memoryStore } from 'react-admin';
import { Navigate, Route } from 'react-router-dom';
import { authProvider } from './authProvider';
import { dataProvider } from './dataProvider';
import StaffLayout from './layout/StaffLayout';
import ClientList from './pages/ClientList';
import Dashboard from './pages/Dashboard';
import Drafts from './pages/Drafts';
import MailSent from './pages/MailSent';
import NotFound from './pages/NotFound';
import Outbox from './outbox/Outbox';
import RequestInitiate from './pages/RequestInitiate';
import SignIn from './pages/SignIn';
import Settings from './settings/Settings';
import Upload from './pages/Upload';
import TemplateCreate from './templates/TemplateCreate';
import TemplateList from './templates/TemplateList';
import { theme } from './theme';

const ToNotFound = () => <Navigate to={StaffRoutes.notFound} replace />;

/** Toasts hide after 3 s (spec section 8) unless a call says otherwise (2 s for a sent invite, 1.5 s for a warning). */
const ToastArea = () => <Notification autoHideDuration={Limits.toastMs} />;

/**
 * The staff console. Routes are the specification's (section 2): public ones without a layout, staff ones inside
 * StaffLayout, which checks the session. react-admin's own /login page is off; the sign-in page is /sign-in.
 * The store lives in memory so that local storage only ever holds the session values of the specification.
 */
const App = () => (
  <Admin
    title="eSign"
    theme={theme}
    layout={StaffLayout}
    authProvider={authProvider}
    dataProvider={dataProvider}
    store={memoryStore()}
    loginPage={false}
    notification={ToastArea}
    catchAll={ToNotFound}
    disableTelemetry
  >
    <CustomRoutes noLayout>
      <Route path="/" element={<Navigate to={StaffRoutes.signIn} replace />} />
      <Route path={StaffRoutes.signIn} element={<SignIn />} />
      <Route path={StaffRoutes.notFound} element={<NotFound />} />
      <Route path={StaffRoutes.list} element={<ClientList />} />
    </CustomRoutes>
    <CustomRoutes>
      <Route path={StaffRoutes.dashboard} element={<Dashboard />} />
      <Route path={StaffRoutes.drafts} element={<Drafts />} />
      <Route path={StaffRoutes.requestInitiate} element={<RequestInitiate />} />
      <Route path={StaffRoutes.upload} element={<Upload />} />
      <Route path={StaffRoutes.mailSent} element={<MailSent />} />
      <Route path={StaffRoutes.templates} element={<TemplateList />} />
      <Route path={StaffRoutes.templateCreate} element={<TemplateCreate />} />
      <Route path={StaffRoutes.outbox} element={<Outbox />} />
      <Route path={StaffRoutes.settings} element={<Settings />} />
    </CustomRoutes>
  </Admin>
);

export default App;
