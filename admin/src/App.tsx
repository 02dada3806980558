import { Limits, StaffRoutes } from '@esign/contract';
import { Admin, CustomRoutes, Notification, Resource, memoryStore } from 'react-admin';
import { Navigate, Route } from 'react-router-dom';
import { RequireAdmin } from './administration/RequireAdmin';
import apiKeys from './api-keys';
import { authProvider } from './authProvider';
import { dataProvider } from './dataProvider';
import deliveries from './deliveries';
import drafts from './drafts';
import { i18nProvider } from './i18n/provider';
import StaffLayout from './layout/StaffLayout';
import Outbox from './outbox/Outbox';
import ClientList from './pages/ClientList';
import NotFound from './pages/NotFound';
import SetPassword from './pages/SetPassword';
import SignIn from './pages/SignIn';
import requests, { MailSent, RequestInitiate, RequestList, Upload } from './requests';
import Settings from './settings/Settings';
import SignerData from './signer-data/SignerData';
import templates from './templates';
import { theme } from './theme';
import users from './users';
import webhooks from './webhooks';

const ToNotFound = () => <Navigate to={StaffRoutes.notFound} replace />;

/** Toasts hide after 3 s (spec section 8) unless a call says otherwise (2 s for a sent invite, 1.5 s for a warning). */
const ToastArea = () => <Notification autoHideDuration={Limits.toastMs} />;

/**
 * The staff console: react-admin resources (one folder each under src/, its index.ts spread into <Resource>) and the
 * specification's screens (section 2) at their routes: public ones without a layout, staff ones inside StaffLayout,
 * which checks the session. Where a route is not a resource's (the dashboard is the requests list, the creation flow
 * is /request-initiate, /upload and /mail-sent) it is a custom route. react-admin's own /login page is off; the
 * sign-in page is /sign-in. The store lives in memory so that local storage only ever holds the session values of the
 * specification.
 */
const App = () => (
  <Admin
    title="eSign"
    theme={theme}
    layout={StaffLayout}
    authProvider={authProvider}
    dataProvider={dataProvider}
    i18nProvider={i18nProvider}
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
      <Route path={StaffRoutes.setPassword} element={<SetPassword />} />
    </CustomRoutes>
    <CustomRoutes>
      <Route path={StaffRoutes.dashboard} element={<RequestList />} />
      <Route path={StaffRoutes.requestInitiate} element={<RequestInitiate />} />
      <Route path={StaffRoutes.upload} element={<Upload />} />
      <Route path={StaffRoutes.mailSent} element={<MailSent />} />
      <Route path={StaffRoutes.outbox} element={<Outbox />} />
      <Route
        path={StaffRoutes.settings}
        element={
          <RequireAdmin>
            <Settings />
          </RequireAdmin>
        }
      />
      <Route
        path={StaffRoutes.signerData}
        element={
          <RequireAdmin>
            <SignerData />
          </RequireAdmin>
        }
      />
    </CustomRoutes>
    <Resource name="requests" {...requests} />
    <Resource name="drafts" {...drafts} />
    <Resource name="templates" {...templates} />
    <Resource name="users" {...users} />
    <Resource name="api-keys" {...apiKeys} />
    <Resource name="webhooks" {...webhooks} />
    <Resource name="deliveries" {...deliveries} />
  </Admin>
);

export default App;
